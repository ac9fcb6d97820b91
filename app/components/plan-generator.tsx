import { Download, Dumbbell, Loader2, Salad } from "lucide-react";
import { useState } from "react";
import { ShareButton } from "~/components/share-button";
import { MealPlanView, WorkoutView } from "~/components/sharing/plan-view";
import { Button } from "~/components/ui/button";
import { downloadBlob } from "~/browser/export-client";
import { USAGE_CHANGED_EVENT } from "~/browser/guest-usage";
import { createShareLink } from "~/browser/health-answer-client";
import { MEALS_FAILED_MESSAGE, planDownload, WORKOUT_FAILED_MESSAGE, type MealPlan, type Workout } from "~/lib/plans";
import { toast } from "~/browser/toast";
import { storedStudyId } from "~/browser/sealed-studies";

type Kind = "workout" | "meal-plan";

/**
 * The generator section of a specialized analysis (SPEC §2, issue 14): 'Generate training program'
 * for focus exercise (POST /api/generate-workout) or 'Generate meal plan' for focus nutrition
 * (POST /api/studies/generate-meals); then the plan with the model's name, Download (HTML) and
 * Share. A 403 LIMIT_REACHED / PRO_REQUIRED goes to `onGate`; other failures toast SPEC §8's message.
 */
export function PlanGenerator({
  kind,
  study,
  analysis,
  onGate,
}: {
  kind: Kind;
  study: { id: number; title: string };
  analysis: string;
  onGate: (kind: "LIMIT_REACHED" | "PRO_REQUIRED", feature: string, body: Record<string, unknown>) => void;
}) {
  const [status, setStatus] = useState<"idle" | "generating" | "generated">("idle");
  const [plan, setPlan] = useState<Workout | MealPlan | null>(null);
  const failed = kind === "workout" ? WORKOUT_FAILED_MESSAGE : MEALS_FAILED_MESSAGE;

  async function generate() {
    setStatus("generating");
    try {
      const res =
        kind === "workout"
          ? await fetch("/api/generate-workout", {
              method: "POST",
              credentials: "include",
              headers: { "Content-Type": "application/json" },
              body: JSON.stringify({
                exerciseAnalysis: analysis,
                studyTitle: study.title,
                studyId: await storedStudyId(study.id),
              }),
            })
          : await fetch("/api/studies/generate-meals", {
              method: "POST",
              credentials: "include",
              headers: { "Content-Type": "application/json" },
              body: JSON.stringify({ studyId: await storedStudyId(study.id), text: analysis }),
            });
      const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
      if (!res.ok) {
        if (res.status === 403 && (body.error === "LIMIT_REACHED" || body.error === "PRO_REQUIRED")) {
          setStatus(plan ? "generated" : "idle");
          onGate(body.error, typeof body.feature === "string" ? body.feature : "specialized_analysis", body);
          return;
        }
        throw new Error(`${res.status}: ${JSON.stringify(body)}`);
      }
      setPlan(kind === "workout" ? (body.workout as Workout) : (body as unknown as MealPlan));
      setStatus("generated");
      window.dispatchEvent(new CustomEvent(USAGE_CHANGED_EVENT));
    } catch (error) {
      console.warn("plan generation failed", error);
      setStatus(plan ? "generated" : "idle");
      toast({ title: "Error", description: failed, variant: "destructive" });
    }
  }

  function download() {
    const result = planDownload(kind, plan);
    if ("error" in result) {
      toast({ title: result.error, description: "Generate a plan first.", variant: "destructive" });
      return;
    }
    try {
      downloadBlob(new Blob([result.html], { type: "text/html;charset=utf-8" }), result.fileName);
      toast({ title: "Download Started" });
    } catch (error) {
      console.warn("download failed", error);
      toast({ title: "Download Failed", variant: "destructive" });
    }
  }

  const label = kind === "workout" ? "Generate training program" : "Generate meal plan";
  const Icon = kind === "workout" ? Dumbbell : Salad;
  return (
    <section className="mt-5 border-t border-slate-200 pt-4" data-testid={`${kind}-generator`}>
      <div className="flex flex-wrap items-start gap-2">
        <Button type="button" size="sm" onClick={generate} disabled={status === "generating"}>
          {status === "generating" ? <Loader2 className="animate-spin" aria-hidden /> : <Icon aria-hidden />}
          {status === "generating"
            ? "Generating..."
            : status === "generated"
              ? `Re${label.slice(1).replace(/^enerate/, "generate")}`
              : label}
        </Button>
        <Button type="button" size="sm" variant="outline" onClick={download} data-testid={`${kind}-download`}>
          <Download aria-hidden /> Download
        </Button>
        {plan && (
          <ShareButton
            testId={`${kind}-share`}
            create={() =>
              kind === "workout"
                ? createShareLink({ kind, plan: plan as Workout })
                : createShareLink({ kind, plan: plan as MealPlan })
            }
            title={kind === "workout" ? "4-week training program" : "7-day meal plan"}
            text={`${kind === "workout" ? "A 4-week training program" : "A 7-day meal plan"} based on "${study.title}"`}
          />
        )}
      </div>
      {plan && (
        <div className="mt-4">
          <p className="mb-2 text-xs text-slate-600" data-testid={`${kind}-model`}>
            Generated by {plan.model}. Items marked [S…] cite the study sentence; items labelled general guidance are
            not from the study. Not medical advice.
          </p>
          {kind === "workout" ? <WorkoutView workout={plan as Workout} /> : <MealPlanView plan={plan as MealPlan} />}
        </div>
      )}
    </section>
  );
}
