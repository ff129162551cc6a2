ALTER TABLE `outbox` ADD `trigger` text DEFAULT 'scheduled' NOT NULL;--> statement-breakpoint
CREATE INDEX `outbox_webhook_due` ON `outbox` (`status`,`webhook_id`,`next_attempt_at`,`seq`);