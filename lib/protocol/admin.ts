/**
 * What `POST /api/v1/admin/workspaces` (and `chips init --json`) answers: a workspace with
 * one room, one harness and its owner. The tokens are shown once and stored hashed.
 */
export interface WorkspaceCreated {
  workspace_id: string;
  space_id: string;
  harness_id: string;
  /** The harness's bearer token. */
  token: string;
  person_id: string;
  /** The owner's person API token (commands, person writes from scripts). */
  person_token: string;
  /** A one-time login link to the room. */
  room_url: string;
}
