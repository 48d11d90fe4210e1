/**
 * The text of seeded runs: English with German, French, Spanish, Japanese and Russian among
 * it. None of these pools holds a MARKERS word: those go in only where the generator says so,
 * so a test knows exactly which runs a search must find.
 */

export const ROOMS = ["general", "billing", "инфраструктура"] as const;
export const PEOPLE = ["Dana Whitfield", "Jürgen Müller", "Aiko Tanaka", "Olusegun Bello"] as const;

export const GOALS = [
  "Fix the flaky checkout test",
  "Upgrade the payment SDK to v5",
  "Add pagination to the orders API",
  "Rechnungsexport für Kunden reparieren",
  "Corriger le calcul de la TVA",
  "Migrar la tabla de pedidos",
  "ログイン画面のバグを直す",
  "Обновить зависимости сборки",
  "Get PO #4471 confirmed",
  "Refactor the mailer retries",
] as const;

export const STEPS = [
  "Read the failing test",
  "Reproduce locally",
  "Write a migration",
  "Update the docs",
  "Run the full suite",
  "Änderungen prüfen",
  "Vérifier les résultats",
  "コードを読む",
  "Проверить логи",
  "Email Dana",
] as const;

export const STATUS = [
  "Reading src/ledger.ts…",
  "Running npm test…",
  "Editing the migration…",
  "Thinking about the retry policy…",
  "Lese die Konfiguration…",
  "Analyse des journaux…",
  "テストを実行中…",
  "Собираю проект…",
] as const;

export const MESSAGES = [
  "Found the cause: a race in the retry loop.",
  "The suite passes locally now.",
  "I need the staging credentials to go on.",
  "Die Tests laufen wieder.",
  "J'ai mis à jour la documentation.",
  "差分を確認してください。",
  "Готово, жду ревью.",
] as const;

/** Words a search must find, and the phrase that carries each into a run's text. */
export const MARKERS = [
  { marker: "zürich", text: "(for the Zürich office)" },
  { marker: "請求書", text: "請求書の件" },
  { marker: "счёт", text: "про счёт клиента" },
  { marker: "kafka", text: "see the Kafka lag alert" },
] as const;
export type Marker = (typeof MARKERS)[number]["marker"];

/** Run summaries, steering texts and receipts' reasons. */
export const DONE = [
  "All steps done; tests pass.",
  "Fertig: alle Prüfungen grün.",
  "完了しました。",
  "Listo, sin cambios pendientes.",
];
export const FAILED = [
  "Tests failed after the change.",
  "Échec : la migration a été refusée.",
  "テストが失敗しました。",
];
export const STEER = [
  "Use the staging database instead.",
  "Bitte nur die Rechnungen von Oktober.",
  "番号をもう一度確認して",
  "Skip the e-mail step.",
];
export const REJECTIONS = ["already past that step", "cannot steer while tests run", "instruction is ambiguous"];
