import { CORE_ROUTES } from "./core";
import { RUN_ROUTES } from "./runs";
import { ROOM_ROUTES } from "./rooms";
import { PEOPLE_ROUTES } from "./people";
import { REVIEW_ROUTES, SHARE_ROUTES } from "./review";
import { OTLP_ROUTES } from "./otlp";
import { ASK_ROUTES, WEBHOOK_ROUTES } from "./asks";

/**
 * Every HTTP route of the API, declared once (lib/core/protocol/route.ts), by name. The server
 * mounts each with its handler, and the OpenAPI document, docs/API.md's route list and the
 * browser's client come from here.
 */
export const ROUTES = {
  ...CORE_ROUTES,
  ...RUN_ROUTES,
  ...ROOM_ROUTES,
  ...PEOPLE_ROUTES,
  ...REVIEW_ROUTES,
  ...SHARE_ROUTES,
  ...OTLP_ROUTES,
  ...ASK_ROUTES,
  ...WEBHOOK_ROUTES,
};
export {
  CORE_ROUTES,
  RUN_ROUTES,
  ROOM_ROUTES,
  PEOPLE_ROUTES,
  REVIEW_ROUTES,
  SHARE_ROUTES,
  OTLP_ROUTES,
  ASK_ROUTES,
  WEBHOOK_ROUTES,
};
