// Parse LogQL queries, one JSON string per line on stdin, with Grafana's own LogQL grammar
// (the parser of Grafana's Loki query editor); print one JSON line per query that has an
// error node, then a summary line.
const { parser } = require("@grafana/lezer-logql");

const queries = require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
let errors = 0;
queries.forEach((query, index) => {
  let at = null;
  parser.parse(query).iterate({
    enter: (node) => {
      if (node.type.isError && at === null) at = node.from;
    },
  });
  if (at !== null) {
    errors += 1;
    console.log(JSON.stringify({ index, at, near: query.slice(Math.max(0, at - 40), at + 40) }));
  }
});
console.log(JSON.stringify({ parsed: queries.length, errors }));
