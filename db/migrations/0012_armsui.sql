CREATE TABLE `review_outcomes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`review_id` text NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`intervention` text NOT NULL,
	`comparator` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `review_outcomes_review_name_unique` ON `review_outcomes` (`review_id`,`name`);
--> statement-breakpoint
CREATE INDEX `review_outcomes_user_idx` ON `review_outcomes` (`user_id`);
