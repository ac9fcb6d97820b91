ALTER TABLE `reviews` ADD `living_schedule` text;--> statement-breakpoint
ALTER TABLE `reviews` ADD `living_next_run_at` integer;--> statement-breakpoint
CREATE INDEX `reviews_living_due_idx` ON `reviews` (`living_next_run_at`) WHERE "reviews"."living_schedule" is not null;--> statement-breakpoint
CREATE TABLE `review_updates` (
	`id` text PRIMARY KEY NOT NULL,
	`review_id` text NOT NULL,
	`user_id` text NOT NULL,
	`trigger` text NOT NULL,
	`status` text DEFAULT 'running' NOT NULL,
	`searches_run` integer DEFAULT 0 NOT NULL,
	`new_records` integer DEFAULT 0 NOT NULL,
	`duplicates_removed` integer DEFAULT 0 NOT NULL,
	`failed` text DEFAULT '[]' NOT NULL,
	`digest_sent` integer DEFAULT false NOT NULL,
	`started_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);--> statement-breakpoint
CREATE INDEX `review_updates_review_idx` ON `review_updates` (`review_id`,`started_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `review_updates_running_idx` ON `review_updates` (`review_id`) WHERE "review_updates"."status" = 'running';
