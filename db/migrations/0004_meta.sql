CREATE TABLE `meta_analysis_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text,
	`device_key` text,
	`status` text DEFAULT 'queued' NOT NULL,
	`progress` integer DEFAULT 0 NOT NULL,
	`error` text,
	`request` text NOT NULL,
	`result` text,
	`meter` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `meta_analysis_jobs_user_idx` ON `meta_analysis_jobs` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `meta_analysis_jobs_device_idx` ON `meta_analysis_jobs` (`device_key`,`created_at`);