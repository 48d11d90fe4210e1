import v8 from "node:v8";

/*
 * V8 flags for the whole server process, set before the rest of it loads (server.ts imports
 * this first). A V8 flag changed at run time, which node:v8 allows with care: each of these
 * only changes decisions V8 makes from then on.
 *
 * Allocation-site pretenuring off. V8 pretenures an object-literal site whose objects
 * tend to survive a scavenge: they are then born in old space, die there, and until the next
 * full GC every young object they point at survives each scavenge through the remembered
 * set. The ingest path's per-event objects live across a commit's round trip, so their sites
 * were pretenured and kept each batch's short-lived strings alive: on the PGlite batch load
 * (4 clients × 100 events) a scavenge copied 4–5× what was in flight. With the flag off and
 * the ingest path's own containers trimmed, the median scavenge there fell from ~6.4 to
 * ~1.5 ms and throughput rose (docs/PERFORMANCE.md, "What the profiles showed").
 *
 * The old generation may grow to twice what the last full GC left live before the next one
 * (V8 chose ~1.1–1.3× here). A node holding thousands of sockets has a large live set, and
 * each full GC's marking competes with the event loop for the machine's cores: under a
 * steady 1,000 events/s the scale bench saw a full GC every ~3–4 s, each with a train of
 * loop stalls, and those stalls set the delivery p99. With the factor at 2: one every ~20 s,
 * for a heap up to twice its live size between them (docs/PERFORMANCE.md, "Many teams").
 */
v8.setFlagsFromString("--no-allocation-site-pretenuring");
v8.setFlagsFromString("--heap-growing-percent=100");
