ALTER TABLE `revisions` ADD `summary` text;--> statement-breakpoint
CREATE INDEX `revisions_plain` ON `revisions` (`seq`) WHERE typeof("revisions"."body") = 'text';