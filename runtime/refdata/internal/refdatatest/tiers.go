package refdatatest

// TiersSchema is the row schema of the tiers file: every JSON type a CSV
// cell can be typed to.
const TiersSchema = `{
  "type": "object",
  "required": ["tier", "monthly_price", "seats"],
  "additionalProperties": false,
  "properties": {
    "tier": {"type": "string", "enum": ["free", "pro", "enterprise"]},
    "monthly_price": {"type": "number", "minimum": 0},
    "seats": {"type": "integer", "minimum": 1},
    "annual": {"type": "boolean"}
  }
}`

// TiersCSV is three valid rows for [TiersSchema], keyed by tier.
const TiersCSV = "tier,monthly_price,seats,annual\nfree,0,1,false\npro,29.5,5,true\nenterprise,499,100,true\n"

// Tiers is the small "tiers" bundle at version, signed by Key(1).
func Tiers(version string) Bundle {
	return Bundle{Name: "tiers", Version: version, Key: Key(1),
		Files: []File{{Path: "tiers.csv", Format: "csv", Key: "tier", Schema: TiersSchema, Body: TiersCSV}}}
}
