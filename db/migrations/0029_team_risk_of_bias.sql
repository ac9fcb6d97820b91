-- Issue 30 item 5: dual independent RoB 2 assessment (two reviewers' own assessments, a consensus with its history).
ALTER TABLE `reviews` ADD `rob_mode` text DEFAULT 'single' NOT NULL;--> statement-breakpoint
CREATE TABLE `review_rob_submissions` (
	`review_id` text NOT NULL,
	`outcome_id` integer NOT NULL,
	`record_id` integer NOT NULL,
	`user_id` text NOT NULL,
	`variant` text NOT NULL,
	`answers` text DEFAULT '{}' NOT NULL,
	`support` text DEFAULT '{}' NOT NULL,
	`proposed` text NOT NULL,
	`overrides` text DEFAULT '{}' NOT NULL,
	`final` text NOT NULL,
	`submitted_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`outcome_id`, `record_id`, `user_id`),
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`outcome_id`) REFERENCES `review_outcomes`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`record_id`) REFERENCES `review_records`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `review_rob_submissions_review_idx` ON `review_rob_submissions` (`review_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `review_rob_consensus` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`review_id` text NOT NULL,
	`outcome_id` integer NOT NULL,
	`record_id` integer NOT NULL,
	`user_id` text NOT NULL,
	`variant` text NOT NULL,
	`answers` text DEFAULT '{}' NOT NULL,
	`support` text DEFAULT '{}' NOT NULL,
	`proposed` text NOT NULL,
	`overrides` text DEFAULT '{}' NOT NULL,
	`final` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`outcome_id`) REFERENCES `review_outcomes`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`record_id`) REFERENCES `review_records`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `review_rob_consensus_study_idx` ON `review_rob_consensus` (`outcome_id`,`record_id`);--> statement-breakpoint
CREATE INDEX `review_rob_consensus_review_idx` ON `review_rob_consensus` (`review_id`);
