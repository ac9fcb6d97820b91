ALTER TABLE `reviews` ADD `extraction_mode` text DEFAULT 'single' NOT NULL;--> statement-breakpoint
CREATE TABLE `review_extraction_submissions` (
	`review_id` text NOT NULL,
	`outcome_id` integer NOT NULL,
	`record_id` integer NOT NULL,
	`user_id` text NOT NULL,
	`values` text NOT NULL,
	`submitted_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`outcome_id`, `record_id`, `user_id`),
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`outcome_id`) REFERENCES `review_outcomes`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`record_id`) REFERENCES `review_records`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `review_extraction_submissions_review_idx` ON `review_extraction_submissions` (`review_id`, `user_id`);--> statement-breakpoint
CREATE TABLE `review_extraction_consensus` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`review_id` text NOT NULL,
	`outcome_id` integer NOT NULL,
	`record_id` integer NOT NULL,
	`arm` text NOT NULL,
	`field` text NOT NULL,
	`value` real,
	`user_id` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`outcome_id`) REFERENCES `review_outcomes`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`record_id`) REFERENCES `review_records`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `review_extraction_consensus_cell_idx` ON `review_extraction_consensus` (`outcome_id`, `record_id`);--> statement-breakpoint
CREATE TABLE `review_activity` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`review_id` text NOT NULL,
	`user_id` text,
	`action` text NOT NULL,
	`record_id` integer,
	`detail` text DEFAULT '{}' NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `review_activity_review_idx` ON `review_activity` (`review_id`, `id`);--> statement-breakpoint
CREATE TABLE `review_digests` (
	`review_id` text NOT NULL,
	`user_id` text NOT NULL,
	`enabled` integer DEFAULT false NOT NULL,
	`last_sent_day` text,
	PRIMARY KEY(`review_id`, `user_id`),
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `review_digests_enabled_idx` ON `review_digests` (`enabled`, `last_sent_day`);
