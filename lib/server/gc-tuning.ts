import v8 from "node:v8";

/*
 * V8's allocation-site pretenuring off for the whole server process, set before the rest of
 * it loads (server.ts imports this first). V8 pretenures an object-literal site whose objects
 * tend to survive a scavenge: they are then born in old space, die there, and until the next
 * full GC every young object they point at survives each scavenge through the remembered
 * set. The ingest path's per-event objects live across a commit's round trip, so their sites
 * were pretenured and kept each batch's short-lived strings alive: on the PGlite batch load
 * (4 clients × 100 events) a scavenge copied 4–5× what was in flight. With the flag off and
 * the ingest path's own containers trimmed, the median scavenge there fell from ~6.4 to
 * ~1.5 ms and throughput rose (docs/PERFORMANCE.md, "PGlite's loop under batches", i12p).
 * A V8 flag changed at run time, which node:v8 allows with care: it only stops future
 * pretenuring decisions.
 */
v8.setFlagsFromString("--no-allocation-site-pretenuring");
