package cli

import "github.com/urfave/cli/v2"

// entry is one command of the table: how to build it and whether only the
// macrokit binary has it (authoring) or every deployment too.
type entry struct {
	build     func(*Config) *cli.Command
	authoring bool
}

// commandTable is every command, in help order. A deployment binary gets
// the entries that are not authoring; macrokit gets them all.
var commandTable = []entry{
	{build: generateCommand, authoring: true},
	{build: checkCommand, authoring: true},
	{build: lintCommand, authoring: true},
	{build: recordCommand, authoring: true},
	{build: func(*Config) *cli.Command { return schemaCommand() }, authoring: true},
	{build: func(*Config) *cli.Command { return initCommand() }, authoring: true},
	{build: RunCommand},
	{build: AskCommand},
	{build: ChatCommand},
	{build: ListCommand},
	{build: SessionsCommand},
	{build: AuditCommand},
	{build: TestCommand},
	{build: ServeCommand},
	{build: GateCommand},
	{build: healCommand, authoring: true},
	{build: RefdataCommand},
	{build: ApprovalsCommand},
	{build: IdentityCommand},
	{build: BatchCommand},
	{build: WorkerCommand},
	{build: ReportCommand},
	{build: evalCommand, authoring: true},
	{build: demoCommand, authoring: true},
	{build: VersionCommand},
}

// commands builds the table's commands over cfg: all of them with
// authoring, else the deployment set.
func commands(cfg *Config, authoring bool) []*cli.Command {
	var cmds []*cli.Command
	for _, e := range commandTable {
		if authoring || !e.authoring {
			cmds = append(cmds, e.build(cfg))
		}
	}
	return cmds
}
