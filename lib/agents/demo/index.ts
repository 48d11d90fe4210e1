/** The demo harness: a real process on the SDK that works in a room and obeys commands. */
export { Demo, DemoError, type DemoEnd } from "./harness";
