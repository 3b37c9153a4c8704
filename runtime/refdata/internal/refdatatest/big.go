package refdatatest

import (
	"fmt"
	"strings"
)

// BigSchema is the row schema of [BigCSV].
const BigSchema = `{
  "type": "object",
  "required": ["id", "name", "score", "tag"],
  "additionalProperties": false,
  "properties": {
    "id": {"type": "string"},
    "name": {"type": "string", "maxLength": 64},
    "score": {"type": "number", "minimum": 0},
    "tag": {"type": "string"}
  }
}`

// BigCSV is an n-row file: id (key), name, score and tag in every row.
func BigCSV(n int, tag string) string {
	var b strings.Builder
	b.Grow(n * 40)
	b.WriteString("id,name,score,tag\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "k%06d,name %d,%d.5,%s\n", i, i, i%1000, tag)
	}
	return b.String()
}

// BigBundle is the "big" bundle at version with n rows tagged by version,
// for benchmarks and batch boundaries.
func BigBundle(version string, n int) Bundle {
	return Bundle{Name: "big", Version: version, Key: Key(1),
		Files: []File{{Path: "big.csv", Format: "csv", Key: "id", Schema: BigSchema, Body: BigCSV(n, version)}}}
}
