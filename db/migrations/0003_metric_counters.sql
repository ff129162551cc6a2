CREATE TABLE `metric_counters` (
	`name` text NOT NULL,
	`outcome` text NOT NULL,
	`value` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`name`, `outcome`)
);
