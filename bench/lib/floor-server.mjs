// The HTTP floor: a bare node:http server that reads a JSON body, parses it and answers 201
// with it — no router, no validation, no database. Whatever Chips does costs more than this.
import http from "node:http";

const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    let out;
    try {
      out = JSON.stringify({ events: [JSON.parse(Buffer.concat(chunks).toString("utf8"))] });
    } catch {
      res.writeHead(400).end();
      return;
    }
    res.writeHead(201, { "content-type": "application/json" }).end(out);
  });
});
server.listen(0, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
