export * from "./ids";
export * from "./limits";
export * from "./errors";
export * from "./fields";
export * from "./events";
export * from "./parse";
export * from "./admin";
