CREATE TABLE `review_grade_settings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`review_id` text NOT NULL,
	`user_id` text NOT NULL,
	`outcome_id` integer NOT NULL,
	`rating` text DEFAULT '{}' NOT NULL,
	`assumed_control_risk` real,
	`decision_threshold` real,
	`updated_by` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`outcome_id`) REFERENCES `review_outcomes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `grade_settings_outcome_unique` ON `review_grade_settings` (`review_id`,`outcome_id`);
--> statement-breakpoint
CREATE INDEX `grade_settings_user_idx` ON `review_grade_settings` (`user_id`);
