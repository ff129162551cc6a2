CREATE TABLE `outbox_events` (
	`event_id` text PRIMARY KEY NOT NULL,
	`payload` text NOT NULL
);
--> statement-breakpoint
-- Added by hand: carry every existing event's bytes over before the column goes (one row per event; all its outbox rows carry the same bytes).
INSERT OR IGNORE INTO `outbox_events` (`event_id`, `payload`) SELECT `event_id`, `payload` FROM `outbox` ORDER BY `seq`;--> statement-breakpoint
DROP INDEX `outbox_due`;--> statement-breakpoint
ALTER TABLE `outbox` DROP COLUMN `payload`;