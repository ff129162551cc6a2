DROP INDEX `attempts_webhook`;--> statement-breakpoint
CREATE INDEX `attempts_outbox` ON `delivery_attempts` (`outbox_seq`,`id`);--> statement-breakpoint
CREATE INDEX `outbox_webhook_seq` ON `outbox` (`webhook_id`,`seq`);