/**
 * The NOTIFY a commit sends other nodes (one per transaction): which node, workspace and seq
 * range. Its node id comes first, so a node can tell its own commits — which every LISTENing
 * node, this one too, receives back — by a prefix, without parsing them.
 */
export const commitNotice = (node: string, workspaceId: string, from: number, to: number) =>
  JSON.stringify({ n: node, w: workspaceId, f: from, t: to });

/** What every notice of `node`'s own commits starts with. */
export const ownNoticePrefix = (node: string) => `${JSON.stringify({ n: node }).slice(0, -1)},`;
