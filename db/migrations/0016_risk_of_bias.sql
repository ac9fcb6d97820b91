CREATE TABLE `risk_of_bias_assessments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`review_id` text NOT NULL,
	`user_id` text NOT NULL,
	`record_id` integer NOT NULL,
	`outcome_id` integer NOT NULL,
	`variant` text NOT NULL,
	`answers` text DEFAULT '{}' NOT NULL,
	`support` text DEFAULT '{}' NOT NULL,
	`proposed` text NOT NULL,
	`overrides` text DEFAULT '{}' NOT NULL,
	`final` text NOT NULL,
	`assessed_by` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`record_id`) REFERENCES `review_records`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`outcome_id`) REFERENCES `review_outcomes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rob_assessments_result_unique` ON `risk_of_bias_assessments` (`review_id`,`record_id`,`outcome_id`);
--> statement-breakpoint
CREATE INDEX `rob_assessments_user_idx` ON `risk_of_bias_assessments` (`user_id`);
