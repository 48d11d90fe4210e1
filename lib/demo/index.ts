/** The demo harness: a real process on the SDK that works in a room and obeys commands. */
export { Demo, DemoError, type DemoEnd, type DemoOptions } from "./harness";
export { makePlan, Progress, steeredStep, verbPhrase, type DemoStep } from "./plan";
