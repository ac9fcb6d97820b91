CREATE TABLE `extraction_edits` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`study_key` text NOT NULL,
	`outcome` text NOT NULL,
	`arm` text NOT NULL,
	`field` text NOT NULL,
	`old_value` real,
	`new_value` real,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `extraction_edits_user_study_idx` ON `extraction_edits` (`user_id`,`study_key`,`outcome`);
