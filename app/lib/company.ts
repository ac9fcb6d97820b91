/**
 * Facts the help and policy pages state (SPEC §1 support claims, §2 Support, §9 privacy claims).
 * One place, so /faq, /terms, /privacy and /contact never disagree.
 */
export const COMPANY = {
  name: "MetaMind",
  supportEmail: "support@metamind.app",
  privacyEmail: "privacy@metamind.app",
  /** UK business address (SPEC §2 Support). */
  address: ["MetaMind Ltd", "London", "United Kingdom"],
  supportHours: "Monday–Friday, 9 AM–5 PM GMT",
  responseTime: "within 24 hours",
  moneyBackDays: 14,
  disputeBusinessDays: 5,
  privacyRequestDays: 30,
  retentionAfterDeletionDays: 30,
  minimumAge: 13,
  policiesUpdated: "July 9, 2025",
} as const;
