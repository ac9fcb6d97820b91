import { Loader2, LogOut, UserPlus } from "lucide-react";
import { useCallback, useEffect, useState } from "react";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Input } from "~/components/ui/input";
import type { ScreeningDecision, ScreeningStage } from "~/lib/reviews";
import { reviewsApi, type ReviewAgreement, type ReviewWithSources } from "~/browser/reviews-client";
import {
  type ApiActivityEntry,
  type ApiConflict,
  type ApiMember,
  describeActivity,
  type MemberRole,
  type ScreeningMode,
} from "~/lib/team";
import { toast } from "~/browser/toast";

const selectClass = "h-9 rounded-md border border-slate-300 bg-white px-2 text-sm";
const STAGE_LABEL: Record<ScreeningStage, string> = { title_abstract: "Title/abstract", full_text: "Full text" };

function failed(title: string, e: unknown) {
  toast({ title, description: e instanceof Error ? e.message : "Please try again.", variant: "destructive" });
}

const percent = (x: number | null) => (x === null ? "–" : `${(x * 100).toFixed(1)}%`);
const fixed = (x: number | null) => (x === null ? "–" : x.toFixed(2));

/**
 * The Team tab (issue 30): the members with their roles (the owner invites, changes roles, names
 * resolvers and removes; a member leaves), the screening settings (single or dual, blind), the
 * conflicts queue with its resolution, and the agreement table (Cohen's κ per stage and pair).
 */
export function TeamTab({
  review,
  userId,
  onChanged,
  onLeft,
}: {
  review: ReviewWithSources;
  userId: string;
  onChanged: () => void;
  onLeft: () => void;
}) {
  const isOwner = review.role === "owner";
  const [members, setMembers] = useState<ApiMember[] | null>(null);
  const [conflicts, setConflicts] = useState<ApiConflict[]>([]);
  const [agreement, setAgreement] = useState<ReviewAgreement | null>(null);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<MemberRole>("reviewer");
  const [lastLink, setLastLink] = useState<string | null>(null);
  const [mode, setMode] = useState<ScreeningMode>(review.screening.mode);
  const [blind, setBlind] = useState(review.screening.blind);
  const [busy, setBusy] = useState(false);
  const [reasons, setReasons] = useState<Record<string, string>>({});
  const [extractionMode, setExtractionMode] = useState<ScreeningMode>(review.extraction.mode);
  const [robMode, setRobMode] = useState<ScreeningMode>(review.riskOfBias?.mode ?? "single");
  const [digest, setDigest] = useState<boolean | null>(null);
  const [activity, setActivity] = useState<ApiActivityEntry[]>([]);
  const [activityCursor, setActivityCursor] = useState<string | null>(null);

  const load = useCallback(async () => {
    const [m, c, a, log, d] = await Promise.all([
      reviewsApi.members(review.id),
      reviewsApi.conflicts(review.id),
      reviewsApi.agreement(review.id),
      reviewsApi.activity(review.id),
      reviewsApi.digest(review.id),
    ]);
    setMembers(m.members);
    setConflicts(c.conflicts);
    setAgreement(a);
    setActivity(log.entries);
    setActivityCursor(log.nextCursor);
    setDigest(d.digest.enabled);
  }, [review.id]);

  useEffect(() => {
    load().catch((e: unknown) => failed("Team not loaded", e));
  }, [load]);

  /** Runs one change, then `after` and (unless the caller left the review) reloads the team. */
  const run = async (title: string, fn: () => Promise<unknown>, after?: () => void, reload = true) => {
    setBusy(true);
    try {
      await fn();
      after?.();
      if (reload) await load();
    } catch (e) {
      failed(title, e);
    } finally {
      setBusy(false);
    }
  };

  const emailOf = (id: string) => members?.find((m) => m.userId === id)?.email ?? "a former member";

  const invite = (e: React.FormEvent) => {
    e.preventDefault();
    void run("Invitation not sent", async () => {
      const { invitation } = await reviewsApi.invite(review.id, { email, role });
      setLastLink(invitation.url);
      setEmail("");
      toast({ title: "Invitation sent", description: `${invitation.email} can accept it for 7 days.` });
    });
  };

  const saveScreening = () =>
    run(
      "Settings not saved",
      () => reviewsApi.update(review.id, { screening: { mode, blind } }),
      () => {
        toast({ title: "Screening settings saved" });
        onChanged();
      },
    );

  const saveExtraction = () =>
    run(
      "Settings not saved",
      () => reviewsApi.update(review.id, { extraction: { mode: extractionMode } }),
      () => {
        toast({ title: "Extraction settings saved" });
        onChanged();
      },
    );

  const saveRob = () =>
    run(
      "Settings not saved",
      () => reviewsApi.update(review.id, { riskOfBias: { mode: robMode } }),
      () => {
        toast({ title: "Risk-of-bias settings saved" });
        onChanged();
      },
    );

  const moreActivity = () =>
    reviewsApi
      .activity(review.id, activityCursor)
      .then((page) => {
        setActivity((list) => [...list, ...page.entries]);
        setActivityCursor(page.nextCursor);
      })
      .catch((e: unknown) => failed("Activity not loaded", e));

  const resolve = (c: ApiConflict, decision: ScreeningDecision) => {
    const key = `${c.recordId}:${c.stage}`;
    const reason = reasons[key] || null;
    return run(
      "Conflict not resolved",
      () => reviewsApi.resolve(review.id, c.recordId, { stage: c.stage, decision, reason }),
      onChanged,
    );
  };

  if (!members) return <Loader2 className="size-5 animate-spin text-slate-500" aria-label="Loading" />;
  return (
    <div className="space-y-8">
      <section aria-labelledby="team-members">
        <h2 id="team-members" className="text-lg font-semibold text-slate-900">
          Members
        </h2>
        <ul className="mt-2 divide-y divide-slate-200 rounded-md border border-slate-200" data-testid="team-members">
          {members.map((m) => (
            <li
              key={m.userId ?? m.invitationId}
              className="flex flex-wrap items-center gap-3 px-3 py-2 text-sm"
              data-testid="team-member"
            >
              <span className="font-medium text-slate-900">{m.email}</span>
              {m.progress && (
                <span className="text-xs text-slate-600" data-testid="member-progress">
                  screened {m.progress.titleAbstract} (title/abstract) · {m.progress.fullText} (full text) ·{" "}
                  {m.progress.conflicts} in conflict · extracted {m.progress.extracted}
                  {m.progress.assessed ? ` · RoB assessed ${m.progress.assessed}` : ""}
                </span>
              )}
              {m.status === "invited" ? <Badge variant="outline">invited</Badge> : null}
              {isOwner && m.role !== "owner" && m.userId ? (
                <>
                  <label className="text-slate-700">
                    <span className="sr-only">Role of {m.email}</span>
                    <select
                      className={selectClass}
                      value={m.role}
                      disabled={busy}
                      onChange={(e) =>
                        void run("Role not changed", () =>
                          reviewsApi.updateMember(review.id, m.userId!, { role: e.target.value as MemberRole }),
                        )
                      }
                    >
                      <option value="reviewer">reviewer</option>
                      <option value="viewer">viewer</option>
                    </select>
                  </label>
                  <label className="flex items-center gap-1 text-slate-700">
                    <input
                      type="checkbox"
                      checked={m.resolver}
                      disabled={busy}
                      onChange={(e) =>
                        void run("Resolver not changed", () =>
                          reviewsApi.updateMember(review.id, m.userId!, { resolver: e.target.checked }),
                        )
                      }
                    />
                    resolves conflicts
                  </label>
                  <Button
                    size="sm"
                    variant="outline"
                    disabled={busy}
                    onClick={() => void run("Member not removed", () => reviewsApi.removeMember(review.id, m.userId!))}
                  >
                    Remove
                  </Button>
                </>
              ) : (
                <Badge variant="secondary">{m.role}</Badge>
              )}
              {m.resolver && m.role !== "owner" && !isOwner ? <Badge variant="secondary">resolver</Badge> : null}
              {!isOwner && m.userId === userId ? (
                <Button
                  size="sm"
                  variant="outline"
                  className="ml-auto"
                  disabled={busy}
                  onClick={() =>
                    void run("Could not leave", () => reviewsApi.removeMember(review.id, userId), onLeft, false)
                  }
                >
                  <LogOut aria-hidden /> Leave review
                </Button>
              ) : null}
            </li>
          ))}
        </ul>
        {isOwner && (
          <form onSubmit={invite} className="mt-3 flex flex-wrap items-end gap-2" aria-label="Invite a member">
            <label className="text-sm text-slate-700">
              E-mail
              <Input
                type="email"
                required
                value={email}
                onChange={(e) => setEmail(e.target.value)}
                className="w-72"
                data-testid="invite-email"
              />
            </label>
            <label className="text-sm text-slate-700">
              Role{" "}
              <select
                className={selectClass}
                value={role}
                onChange={(e) => setRole(e.target.value as MemberRole)}
                data-testid="invite-role"
              >
                <option value="reviewer">reviewer (screens, extracts, assesses)</option>
                <option value="viewer">viewer (reads)</option>
              </select>
            </label>
            <Button type="submit" disabled={busy}>
              <UserPlus aria-hidden /> Invite
            </Button>
          </form>
        )}
        {lastLink && (
          <p className="mt-2 text-xs break-all text-slate-600">
            Invitation link (works once, for 7 days, only for that e-mail):{" "}
            <span data-testid="invite-link">{lastLink}</span>
          </p>
        )}
      </section>

      <section aria-labelledby="team-screening">
        <h2 id="team-screening" className="text-lg font-semibold text-slate-900">
          Screening
        </h2>
        <fieldset className="mt-2 flex flex-wrap items-center gap-4 text-sm text-slate-700" disabled={!isOwner || busy}>
          <legend className="sr-only">Screening mode</legend>
          <label className="flex items-center gap-1">
            <input
              type="radio"
              name="screening-mode"
              value="single"
              checked={mode === "single"}
              onChange={() => setMode("single")}
            />{" "}
            Single (one decision per record)
          </label>
          <label className="flex items-center gap-1">
            <input
              type="radio"
              name="screening-mode"
              value="dual"
              checked={mode === "dual"}
              onChange={() => setMode("dual")}
              data-testid="mode-dual"
            />{" "}
            Dual (two independent votes per record)
          </label>
          <label className="flex items-center gap-1">
            <input type="checkbox" checked={blind} onChange={(e) => setBlind(e.target.checked)} /> Blind (no one sees
            another&apos;s vote)
          </label>
          {isOwner && (
            <Button size="sm" onClick={() => void saveScreening()} data-testid="save-screening">
              Save
            </Button>
          )}
        </fieldset>
      </section>

      <section aria-labelledby="team-extraction">
        <h2 id="team-extraction" className="text-lg font-semibold text-slate-900">
          Data extraction
        </h2>
        <fieldset className="mt-2 flex flex-wrap items-center gap-4 text-sm text-slate-700" disabled={!isOwner || busy}>
          <legend className="sr-only">Extraction mode</legend>
          <label className="flex items-center gap-1">
            <input
              type="radio"
              name="extraction-mode"
              value="single"
              checked={extractionMode === "single"}
              onChange={() => setExtractionMode("single")}
            />{" "}
            Single (one extractor)
          </label>
          <label className="flex items-center gap-1">
            <input
              type="radio"
              name="extraction-mode"
              value="dual"
              checked={extractionMode === "dual"}
              onChange={() => setExtractionMode("dual")}
              data-testid="extraction-dual"
            />{" "}
            Dual (two independent, blind extractions per study; consensus on differing values)
          </label>
          {isOwner && (
            <Button size="sm" onClick={() => void saveExtraction()} data-testid="save-extraction">
              Save
            </Button>
          )}
        </fieldset>
      </section>

      <section aria-labelledby="team-rob">
        <h2 id="team-rob" className="text-lg font-semibold text-slate-900">
          Risk of bias
        </h2>
        <fieldset className="mt-2 flex flex-wrap items-center gap-4 text-sm text-slate-700" disabled={!isOwner || busy}>
          <legend className="sr-only">Risk-of-bias assessment mode</legend>
          <label className="flex items-center gap-1">
            <input
              type="radio"
              name="rob-mode"
              value="single"
              checked={robMode === "single"}
              onChange={() => setRobMode("single")}
            />{" "}
            Single (one assessment per study and outcome)
          </label>
          <label className="flex items-center gap-1">
            <input
              type="radio"
              name="rob-mode"
              value="dual"
              checked={robMode === "dual"}
              onChange={() => setRobMode("dual")}
              data-testid="rob-dual"
            />{" "}
            Dual (two independent, blind RoB 2 assessments; consensus assessment by the owner or a resolver)
          </label>
          {isOwner && (
            <Button size="sm" onClick={() => void saveRob()} data-testid="save-rob-mode">
              Save
            </Button>
          )}
        </fieldset>
      </section>

      <section aria-labelledby="team-conflicts">
        <h2 id="team-conflicts" className="text-lg font-semibold text-slate-900">
          Conflicts <Badge variant="secondary">{conflicts.length}</Badge>
        </h2>
        {digest !== null && (
          <label className="mt-1 flex items-center gap-2 text-sm text-slate-700">
            <input
              type="checkbox"
              checked={digest}
              disabled={busy}
              data-testid="digest"
              onChange={(e) => {
                const on = e.target.checked;
                void run("Setting not saved", () => reviewsApi.setDigest(review.id, on));
              }}
            />
            E-mail me a daily digest while conflicts wait
          </label>
        )}
        {conflicts.length === 0 ? (
          <p className="mt-2 text-sm text-slate-600">No conflicts waiting.</p>
        ) : (
          <ul className="mt-2 space-y-2" data-testid="conflicts">
            {conflicts.map((c) => {
              const key = `${c.recordId}:${c.stage}`;
              return (
                <li key={key} className="rounded-md border border-slate-200 p-3 text-sm" data-testid="conflict">
                  <p className="font-medium text-slate-900">{c.title}</p>
                  <p className="text-xs text-slate-500">{STAGE_LABEL[c.stage]}</p>
                  <ul className="mt-1 text-slate-700">
                    {c.votes.map((v) => (
                      <li key={v.userId}>
                        {emailOf(v.userId)}: <strong>{v.decision}</strong>
                        {v.reason ? ` (${v.reason})` : ""}
                      </li>
                    ))}
                  </ul>
                  {review.resolver && (
                    <div className="mt-2 flex flex-wrap items-center gap-2">
                      <Button
                        size="sm"
                        disabled={busy}
                        onClick={() => void resolve(c, "include")}
                        data-testid="resolve-include"
                      >
                        Include
                      </Button>
                      <Button
                        size="sm"
                        variant="outline"
                        disabled={busy}
                        onClick={() => void resolve(c, "exclude")}
                        data-testid="resolve-exclude"
                      >
                        Exclude
                      </Button>
                      <label className="text-slate-700">
                        <span className="sr-only">Exclusion reason</span>
                        <select
                          className={selectClass}
                          value={reasons[key] ?? ""}
                          onChange={(e) => setReasons({ ...reasons, [key]: e.target.value })}
                        >
                          <option value="">(reason)</option>
                          {[
                            ...new Set([
                              ...c.votes.map((v) => v.reason).filter((r): r is string => !!r),
                              ...review.exclusionReasons,
                            ]),
                          ].map((r) => (
                            <option key={r} value={r}>
                              {r}
                            </option>
                          ))}
                        </select>
                      </label>
                    </div>
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </section>

      {agreement && (
        <section aria-labelledby="team-agreement">
          <h2 id="team-agreement" className="text-lg font-semibold text-slate-900">
            Agreement
          </h2>
          <p className="text-xs text-slate-500">
            Records both reviewers screened; &lsquo;maybe&rsquo; counts as include. Cohen&apos;s κ with its 95% CI
            (Fleiss, Cohen &amp; Everitt 1969 standard error).
          </p>
          <table className="mt-2 w-full text-left text-sm" data-testid="agreement">
            <thead className="text-slate-600">
              <tr>
                <th className="py-1">Stage</th>
                <th>Reviewers</th>
                <th>Records</th>
                <th>Agreement</th>
                <th>Cohen&apos;s κ (95% CI)</th>
                <th>Include/include · include/exclude · exclude/include · exclude/exclude</th>
              </tr>
            </thead>
            <tbody>
              {(["titleAbstract", "fullText"] as const).flatMap((stage) =>
                [
                  { key: "all", who: "all pairs", r: agreement[stage] },
                  ...agreement[stage].pairs.map((p) => ({ key: p.reviewers.join(), who: p.emails.join(" & "), r: p })),
                ].map(({ key, who, r }) => (
                  <tr key={`${stage}-${key}`} className="border-t border-slate-100">
                    <td className="py-1">{stage === "titleAbstract" ? "Title/abstract" : "Full text"}</td>
                    <td>{who}</td>
                    <td>{r.n}</td>
                    <td>{percent(r.agreement)}</td>
                    <td>
                      {fixed(r.kappa)}
                      {r.kappaCi ? ` (${fixed(r.kappaCi[0])} to ${fixed(r.kappaCi[1])})` : ""}
                    </td>
                    <td>{r.table.flat().join(" · ")}</td>
                  </tr>
                )),
              )}
            </tbody>
          </table>
          {agreement.riskOfBias && agreement.riskOfBias.n > 0 && (
            <>
              <p className="mt-3 text-xs text-slate-500">
                Risk of bias (RoB 2), studies × outcomes both reviewers assessed: unweighted Cohen&apos;s κ over Low /
                Some concerns / High (rows: the assessment submitted first).
              </p>
              <table className="mt-1 w-full text-left text-sm" data-testid="rob-agreement">
                <thead className="text-slate-600">
                  <tr>
                    <th className="py-1">Judgement</th>
                    <th>Assessed by both</th>
                    <th>Agreement</th>
                    <th>Cohen&apos;s κ (95% CI)</th>
                  </tr>
                </thead>
                <tbody>
                  {[
                    ...(["D1", "D2", "D3", "D4", "D5"] as const).map(
                      (d) => [d, agreement.riskOfBias!.domains[d]] as const,
                    ),
                    ["Overall", agreement.riskOfBias.overall] as const,
                  ].map(([label, r]) => (
                    <tr key={label} className="border-t border-slate-100">
                      <td className="py-1">{label}</td>
                      <td>{r.n}</td>
                      <td>{percent(r.agreement)}</td>
                      <td>
                        {fixed(r.kappa)}
                        {r.kappaCi ? ` (${fixed(r.kappaCi[0])} to ${fixed(r.kappaCi[1])})` : ""}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
        </section>
      )}

      <section aria-labelledby="team-activity">
        <h2 id="team-activity" className="text-lg font-semibold text-slate-900">
          Activity
        </h2>
        {activity.length === 0 ? (
          <p className="mt-2 text-sm text-slate-600">Nothing yet.</p>
        ) : (
          <ul className="mt-2 space-y-1 text-sm text-slate-700" data-testid="activity">
            {activity.map((a) => (
              <li key={a.id}>
                <span className="text-xs text-slate-500">{new Date(a.createdAt).toLocaleString()}</span> ·{" "}
                {a.email ?? "a former account"} {describeActivity(a)}
                {a.recordTitle ? <span className="text-slate-500"> · {a.recordTitle}</span> : null}
              </li>
            ))}
          </ul>
        )}
        {activityCursor && (
          <Button size="sm" variant="outline" className="mt-2" onClick={() => void moreActivity()}>
            Older activity
          </Button>
        )}
      </section>
    </div>
  );
}
