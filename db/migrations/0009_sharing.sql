CREATE TABLE `shared_items` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`user_id` text,
	`device_key` text,
	`client_id` text,
	`title` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `shared_items_user_idx` ON `shared_items` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `shared_items_device_idx` ON `shared_items` (`device_key`,`created_at`);
