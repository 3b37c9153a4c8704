package refdata

// Unexported names that the external tests in package refdata_test check
// directly: the row parser and the size of its schema-check batches.
var (
	CompileSchema = compileSchema
	ParseRows     = parseRows
)

// BatchRows is [batchRows], so tests can put errors across batch boundaries.
const BatchRows = batchRows
