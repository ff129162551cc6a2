CREATE TABLE `content_types` (
	`team_id` text NOT NULL,
	`name` text NOT NULL,
	`collection` text NOT NULL,
	`urls` integer DEFAULT false NOT NULL,
	`definition` text NOT NULL,
	PRIMARY KEY(`team_id`, `name`),
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `delivery_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`outbox_seq` integer NOT NULL,
	`webhook_id` text NOT NULL,
	`event_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`trigger` text NOT NULL,
	`started_at` integer NOT NULL,
	`status_code` integer,
	`error` text,
	`duration_ms` integer NOT NULL,
	`response_body` text,
	`next_attempt_at` integer
);
--> statement-breakpoint
CREATE INDEX `attempts_webhook` ON `delivery_attempts` (`webhook_id`,`id`);--> statement-breakpoint
CREATE TABLE `documents` (
	`team_id` text NOT NULL,
	`id` text NOT NULL,
	`canonical_id` text NOT NULL,
	`kind` text NOT NULL,
	`collection` text NOT NULL,
	`body` text NOT NULL,
	`change_vector` text NOT NULL,
	`published` integer DEFAULT false NOT NULL,
	`archived` integer DEFAULT false NOT NULL,
	`deleted_at` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`team_id`, `id`),
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `documents_canonical` ON `documents` (`team_id`,`canonical_id`);--> statement-breakpoint
CREATE TABLE `memberships` (
	`team_id` text NOT NULL,
	`user_id` text NOT NULL,
	`capabilities` text NOT NULL,
	PRIMARY KEY(`team_id`, `user_id`),
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `outbox` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` text NOT NULL,
	`webhook_id` text NOT NULL,
	`team_id` text NOT NULL,
	`event_type` text NOT NULL,
	`payload` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lease_token` text,
	`lease_expires_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `outbox_event_webhook` ON `outbox` (`event_id`,`webhook_id`);--> statement-breakpoint
CREATE INDEX `outbox_due` ON `outbox` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `revisions` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` text NOT NULL,
	`document_id` text NOT NULL,
	`ordinal` integer NOT NULL,
	`change_vector` text NOT NULL,
	`body` text NOT NULL,
	`stamped` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `revisions_cv` ON `revisions` (`team_id`,`change_vector`);--> statement-breakpoint
CREATE UNIQUE INDEX `revisions_doc_ordinal` ON `revisions` (`team_id`,`document_id`,`ordinal`);--> statement-breakpoint
CREATE TABLE `schedules` (
	`team_id` text NOT NULL,
	`document_id` text NOT NULL,
	`publish_at` integer NOT NULL,
	`scheduled_by` text NOT NULL,
	`lease_token` text,
	`lease_expires_at` integer,
	PRIMARY KEY(`team_id`, `document_id`),
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `schedules_due` ON `schedules` (`publish_at`);--> statement-breakpoint
CREATE TABLE `site_changes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` text NOT NULL,
	`status` text NOT NULL,
	`user_id` text,
	`occurred_at` integer NOT NULL,
	`emitted_at` integer
);
--> statement-breakpoint
CREATE INDEX `site_changes_team` ON `site_changes` (`team_id`,`emitted_at`);--> statement-breakpoint
CREATE TABLE `snapshots` (
	`team_id` text NOT NULL,
	`id` text NOT NULL,
	`document_id` text NOT NULL,
	`name` text,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text,
	`revoked_at` text,
	PRIMARY KEY(`team_id`, `id`),
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `snapshots_doc` ON `snapshots` (`team_id`,`document_id`);--> statement-breakpoint
CREATE TABLE `teams` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`locales` text NOT NULL,
	`default_locale` text NOT NULL,
	`fallbacks` text DEFAULT '{}' NOT NULL,
	`content_index` text,
	`index_generation` integer DEFAULT 0 NOT NULL,
	`indexed_generation` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_token_hash_unique` ON `users` (`token_hash`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`label` text NOT NULL,
	`provider` text NOT NULL,
	`target` text NOT NULL,
	`events` text NOT NULL,
	`secret` text NOT NULL,
	`options` text DEFAULT '{}' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhooks_team` ON `webhooks` (`team_id`);