CREATE TABLE `review_characteristic_columns` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`review_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `review_characteristic_columns_name_unique` ON `review_characteristic_columns` (`review_id`,`name`);
--> statement-breakpoint
CREATE TABLE `review_characteristic_edits` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`review_id` text NOT NULL,
	`record_id` integer NOT NULL,
	`column_key` text NOT NULL,
	`old_value` text,
	`new_value` text,
	`user_id` text NOT NULL,
	`who` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`record_id`) REFERENCES `review_records`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `review_characteristic_edits_review_idx` ON `review_characteristic_edits` (`review_id`,`record_id`);
