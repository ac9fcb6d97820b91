/**
 * POST /api/risk-of-bias/rob2/judge: the RoB 2 algorithm alone, stateless. Validates the body
 * and runs the pure core (app/lib/risk-of-bias/rob2.ts).
 */
import { z } from "zod";
import {
  invalidAnswers,
  judgeRob2,
  missingAnswers,
  ROB2_ANSWERS,
  rob2Questions,
  type Rob2Answer,
  type Rob2Judgement,
  type Rob2Variant,
} from "~/lib/risk-of-bias/rob2";
import { AppError, parseInput } from "../http/errors";

/** Every question id of either variant ('1.1' … '5.3'). */
export const QUESTION_IDS: ReadonlySet<string> = new Set(
  [...rob2Questions("assignment"), ...rob2Questions("adhering")].map((q) => q.id),
);

export const Rob2AnswersSchema = z
  .record(z.string().max(10), z.enum(ROB2_ANSWERS as [Rob2Answer, ...Rob2Answer[]]))
  .refine((answers) => Object.keys(answers).every((id) => QUESTION_IDS.has(id)), {
    message: "answers may only name RoB 2 signalling questions ('1.1' … '5.3')",
  });

export const JudgeRequestSchema = z.object({
  variant: z.enum(["assignment", "adhering"]),
  answers: Rob2AnswersSchema,
});

/**
 * Checks one variant's answers: 400 INVALID_INPUT when an asked question got an answer it does
 * not accept (NA outside "if applicable" questions, NI to 3.2); 400 ANSWERS_INCOMPLETE with
 * `missing: ['2.3', …]` when questions the answers call for are unanswered.
 */
export function checkRob2Answers(variant: Rob2Variant, answers: Record<string, Rob2Answer>): void {
  const invalid = invalidAnswers(variant, answers);
  if (invalid.length) {
    throw new AppError(
      "INVALID_INPUT",
      `These questions do not accept the answer given: ${invalid.map((id) => `${id} (${answers[id]})`).join(", ")}`,
      400,
    );
  }
  const missing = missingAnswers(variant, answers);
  if (missing.length) {
    throw new AppError("ANSWERS_INCOMPLETE", `These signalling questions need an answer: ${missing.join(", ")}`, 400, {
      missing,
    });
  }
}

/**
 * Parses a judge request and returns `{domains: {D1…D5}, overall, asked}`. Errors: 400
 * INVALID_INPUT (bad variant, unknown question ids, answers outside Y/PY/PN/N/NI/NA or not
 * accepted by their question), 400 ANSWERS_INCOMPLETE naming the unanswered asked questions.
 */
export function judgeRequest(body: unknown): Rob2Judgement {
  const { variant, answers } = parseInput(JudgeRequestSchema, body);
  checkRob2Answers(variant, answers);
  const result = judgeRob2(variant, answers);
  return { domains: result.domains, overall: result.overall, asked: result.asked };
}
