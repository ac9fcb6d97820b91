-- Issue 27 (screening at 20,000 records): progress counts and the decisions a retraining reads come from this covering index instead of the records' wide rows.
CREATE INDEX `review_records_screening_idx` ON `review_records` (`review_id`,`duplicate_of`,`ta_decision`,`ta_decided_at`);--> statement-breakpoint
-- One retraining at a time per ranking (the review's: ranking = ''; a reviewer's own in dual screening: their user id), across isolates: a lease that expires.
CREATE TABLE `review_ranking_leases` (
	`review_id` text NOT NULL,
	`ranking` text NOT NULL,
	`holder` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`review_id`, `ranking`),
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade
);
