/**
 * The attribute names Chips reads and writes, from the OpenTelemetry project's own
 * `@opentelemetry/semantic-conventions` (GenAI names are in its incubating entry point), in
 * one place; and Chips' own `chips.*` names beside them (docs/OTEL.md).
 */
export {
  ATTR_GEN_AI_AGENT_DESCRIPTION,
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from "@opentelemetry/semantic-conventions/incubating";
export { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";

/** The GenAI conventions' planning operation: a well-known value the JS constants do not have yet. */
export const GEN_AI_OPERATION_NAME_VALUE_PLAN = "plan";

/** Chips' own attributes. */
export const CHIPS = {
  runId: "chips.run.id",
  spaceId: "chips.space.id",
  workspaceId: "chips.workspace.id",
  goal: "chips.run.goal",
  outcome: "chips.run.outcome",
  cost: "chips.usage.cost_usd",
  exitCode: "chips.tool.exit_code",
  outcomeOfCall: "chips.tool.outcome",
  summary: "chips.tool.summary",
  planSteps: "chips.plan.steps",
  planStates: "chips.plan.states",
} as const;
