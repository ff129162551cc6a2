CREATE TABLE `revision_locales` (
	`team_id` text NOT NULL,
	`document_id` text NOT NULL,
	`locale` text NOT NULL,
	`last_ordinal` integer NOT NULL,
	`last_at` text NOT NULL,
	PRIMARY KEY(`team_id`, `document_id`, `locale`),
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Existing Published Versions, once: what each new stamped revision records as it is written.
INSERT INTO `revision_locales` (`team_id`, `document_id`, `locale`, `last_ordinal`, `last_at`)
  SELECT r.`team_id`, r.`document_id`, l.`key`, max(r.`ordinal`), max(r.`created_at`)
  FROM `revisions` r, json_each(r.`body`, '$.locales') l
  WHERE r.`stamped` = 1
  GROUP BY r.`team_id`, r.`document_id`, l.`key`;
