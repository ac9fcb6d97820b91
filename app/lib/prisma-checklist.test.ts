import { describe, expect, it } from "vitest";
import { buildPrismaChecklist, type ChecklistFacts } from "./prisma-checklist";

const EMPTY_PRISMA = {
  identified: {},
  duplicatesRemoved: 0,
  screened: 0,
  excluded: 0,
  soughtForRetrieval: 0,
  notRetrieved: 0,
  assessed: 0,
  excludedWithReasons: {},
  included: 0,
  awaitingScreening: 0,
  maybe: 0,
  awaitingFullText: 0,
  fullTextMaybe: 0,
};

const EMPTY: ChecklistFacts = {
  title: "Exercise for depression",
  question: {},
  inclusionCriteria: [],
  exclusionCriteria: [],
  sources: [],
  prisma: EMPTY_PRISMA,
  screeners: { titleAbstract: 0, fullText: 0 },
  prioritisedScreening: false,
  outcomes: [],
  extractionEdits: { cells: 0, editors: 0 },
};

const FULL: ChecklistFacts = {
  title: "Exercise for depression: a systematic review and meta-analysis",
  question: {
    text: "Does exercise reduce depressive symptoms?",
    population: "adults with depression",
    intervention: "exercise",
    comparator: "usual care",
    outcomes: "depressive symptoms",
  },
  inclusionCriteria: ["randomised controlled trial", "adults"],
  exclusionCriteria: ["animal studies"],
  sources: [
    {
      kind: "search",
      name: "PubMed",
      query: "exercise AND depression",
      createdAt: "2026-10-01T09:00:00.000Z",
      recordCount: 120,
    },
    {
      kind: "search",
      name: "Europe PMC",
      query: "exercise depression",
      createdAt: "2026-10-01T09:05:00.000Z",
      recordCount: 80,
    },
  ],
  prisma: {
    identified: { PubMed: 120, "Europe PMC": 80 },
    duplicatesRemoved: 30,
    screened: 170,
    excluded: 150,
    soughtForRetrieval: 20,
    notRetrieved: 2,
    assessed: 18,
    excludedWithReasons: { "Wrong population": 10, "Wrong outcome": 3 },
    included: 5,
    awaitingScreening: 0,
    maybe: 0,
    awaitingFullText: 0,
    fullTextMaybe: 0,
  },
  screeners: { titleAbstract: 2, fullText: 1 },
  prioritisedScreening: true,
  agreement: { titleAbstract: { kappa: 0.714, n: 170 }, fullText: null },
  outcomes: [
    { name: "Depressive symptoms", intervention: "exercise", comparator: "usual care" },
    { name: "Dropout", intervention: "exercise", comparator: "usual care" },
  ],
  extractionEdits: { cells: 1, editors: 1 },
  riskOfBias: { tool: "RoB 2", assessedStudies: 5 },
};

const ITEMS = [
  "1",
  "2",
  "3",
  "4",
  "5",
  "6",
  "7",
  "8",
  "9",
  "10a",
  "10b",
  "11",
  "12",
  "13a",
  "13b",
  "13c",
  "13d",
  "13e",
  "13f",
  "14",
  "15",
  "16a",
  "16b",
  "17",
  "18",
  "19",
  "20a",
  "20b",
  "20c",
  "20d",
  "21",
  "22",
  "23a",
  "23b",
  "23c",
  "23d",
  "24a",
  "24b",
  "24c",
  "25",
  "26",
  "27",
];

describe("PRISMA 2020 checklist", () => {
  it("has PRISMA's 42 items in order, in their sections, and the 12 abstract items", () => {
    const list = buildPrismaChecklist(EMPTY);
    expect(list.items.map((i) => i.item)).toEqual(ITEMS);
    expect(list.items.find((i) => i.item === "13d")!.section).toBe("Methods");
    expect(list.items.find((i) => i.item === "16a")!.section).toBe("Results");
    expect(list.items.find((i) => i.item === "24a")!.section).toBe("Other information");
    expect(list.abstractItems.map((i) => i.item)).toEqual([
      "1",
      "2",
      "3",
      "4",
      "5",
      "6",
      "7",
      "8",
      "9",
      "10",
      "11",
      "12",
    ]);
    expect(list.counts.reported + list.counts.missing + list.counts.not_applicable).toBe(42);
  });

  it("a new review: nothing is claimed, syntheses are not applicable with the reason, every missing item says what to add", () => {
    const list = buildPrismaChecklist(EMPTY);
    expect(list.items.filter((i) => i.status === "reported")).toEqual([]);
    const na = list.items.filter((i) => i.status === "not_applicable");
    expect(na.map((i) => i.item)).toEqual(["13a", "13b", "13c", "13d", "19", "20b"]);
    expect(na[0]!.text).toBe("No synthesis yet: no outcome has been set up for data extraction.");
    for (const item of list.items) expect(item.text.length).toBeGreaterThan(20);
    expect(list.methodsDraft).toBe("");
  });

  it("a review with searches, dual screening, extraction and risk of bias: the recorded facts, in words", () => {
    const list = buildPrismaChecklist(FULL);
    const text = (item: string) => list.items.find((i) => i.item === item)!;
    expect(text("1").status).toBe("reported");
    expect(text("4").text).toContain(
      "Does exercise reduce depressive symptoms? — population: adults with depression; intervention: exercise; comparator: usual care",
    );
    expect(text("6").text).toBe(
      "Records came from PubMed (searched 2026-10-01, 120 records) and Europe PMC (searched 2026-10-01, 80 records). Add any registers, websites, reference lists or contacts also consulted.",
    );
    expect(text("7")).toMatchObject({
      status: "reported",
      text: 'Search strategies as run: PubMed: "exercise AND depression" (2026-10-01); Europe PMC: "exercise depression" (2026-10-01).',
    });
    expect(text("8").text).toContain(
      "Titles and abstracts of 170 records were screened by two reviewers independently (Cohen's κ = 0.71 on 170 records both screened).",
    );
    expect(text("8").text).toContain("Full texts of 20 reports were sought and assessed by one reviewer.");
    expect(text("9").text).toContain("who corrected 1 value (1 person)");
    expect(text("10a").text).toContain("Depressive symptoms and Dropout (exercise vs usual care)");
    expect(text("11").text).toContain("RoB 2 for 5 studies");
    expect(text("16a").text).toContain(
      "200 records identified, 30 duplicates removed, 170 records screened, 150 excluded; 20 reports sought for retrieval, 2 not retrieved, 18 assessed for eligibility; 5 studies included.",
    );
    expect(text("16b").text).toContain("Wrong population (10) and Wrong outcome (3)");
    expect(text("13d").status).toBe("reported");
    expect(list.abstractItems[6]).toMatchObject({ topic: "Included studies", status: "reported" });
    expect(list.methodsDraft).toContain(
      "Studies were eligible if they met these criteria: randomised controlled trial; adults.",
    );
    expect(list.methodsDraft).toContain("REML estimate of τ² with the Hartung–Knapp adjustment");
    expect(list.methodsDraft).not.toContain("State the model");
  });

  it("a search imported from a file asks for its strategy; one screener is a limitation to discuss", () => {
    const list = buildPrismaChecklist({
      ...FULL,
      sources: [
        ...FULL.sources,
        { kind: "file", name: "embase.ris", query: null, createdAt: "2026-10-02T00:00:00.000Z", recordCount: 1 },
      ],
      screeners: { titleAbstract: 1, fullText: 1 },
      agreement: undefined,
    });
    const seven = list.items.find((i) => i.item === "7")!;
    expect(seven.status).toBe("missing");
    expect(seven.text).toContain("Give the full search strategy behind embase.ris");
    expect(list.items.find((i) => i.item === "6")!.text).toContain(
      "the file embase.ris (imported 2026-10-02, 1 record)",
    );
    expect(list.items.find((i) => i.item === "8")!.text).toContain("screened by one reviewer.");
    expect(list.items.find((i) => i.item === "23c")!.text).toContain("screening by one reviewer");
  });

  it("states imported study data (item 9) and the living updates in the methods draft, only when recorded", () => {
    const updated = {
      ...FULL,
      prisma: {
        ...FULL.prisma,
        updated: {
          updates: 2,
          lastUpdateAt: "2026-11-20T06:00:00.000Z",
          previousStudies: 4,
          newFlow: { ...EMPTY_PRISMA, included: 1 },
          totalStudies: 5,
        },
      },
      livingSchedule: "monthly",
      importedData: { studies: 3, outcomes: 1, files: ["revman.csv"] },
    };
    const list = buildPrismaChecklist(updated);
    expect(list.items.find((i) => i.item === "9")!.text).toContain(
      "Study-level data for 3 studies in 1 outcome were imported from CSV (the file revman.csv) instead of being read from the reports.",
    );
    expect(list.methodsDraft).toContain(
      "The searches were re-run 2 times as a living review (scheduled monthly), most recently on 2026-11-20;",
    );
    expect(list.methodsDraft).toContain("Study-level data for 3 studies");
    const plain = buildPrismaChecklist(FULL);
    expect(plain.methodsDraft).not.toContain("living review");
    expect(plain.methodsDraft).not.toContain("imported from CSV");
  });
});
