/** The user as the API shows it (SPEC §3 User plus the plan). */
export interface PublicUser {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  profileImageUrl: string | null;
  createdAt: string;
  isPro: boolean;
}
