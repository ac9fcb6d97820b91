ALTER TABLE `reviews` ADD `screening_mode` text DEFAULT 'single' NOT NULL;--> statement-breakpoint
ALTER TABLE `reviews` ADD `screening_blind` integer DEFAULT true NOT NULL;--> statement-breakpoint
CREATE TABLE `review_members` (
	`review_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text NOT NULL,
	`resolver` integer DEFAULT false NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`review_id`, `user_id`),
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `review_members_user_idx` ON `review_members` (`user_id`);--> statement-breakpoint
CREATE TABLE `review_invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`review_id` text NOT NULL,
	`user_id` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`accepted_at` integer,
	`accepted_by` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `review_invitations_token_unique` ON `review_invitations` (`token_hash`);--> statement-breakpoint
CREATE INDEX `review_invitations_review_idx` ON `review_invitations` (`review_id`,`email`);--> statement-breakpoint
CREATE TABLE `review_resolutions` (
	`review_id` text NOT NULL,
	`record_id` integer NOT NULL,
	`stage` text NOT NULL,
	`user_id` text NOT NULL,
	`decision` text NOT NULL,
	`reason` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`record_id`, `stage`),
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`record_id`) REFERENCES `review_records`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `review_resolutions_review_idx` ON `review_resolutions` (`review_id`,`stage`);--> statement-breakpoint
CREATE TABLE `review_member_rankings` (
	`review_id` text NOT NULL,
	`user_id` text NOT NULL,
	`version` integer NOT NULL,
	`mode` text NOT NULL,
	`ranked` text NOT NULL,
	`estimated_relevant_remaining` real,
	`computed_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`review_id`, `user_id`),
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `review_decisions_record_idx` ON `review_decisions` (`record_id`,`stage`,`user_id`);
