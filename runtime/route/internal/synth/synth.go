package synth

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime"
)

// Noop is the handler of every synthetic macro: retrieval never runs one.
func Noop(context.Context, *runtime.Exec, json.RawMessage) (any, error) { return nil, nil }

// Core are the six GitHub macros of the routing benchmark (argument
// facts from its README; intents, descriptions and examples written here)
// and the six back-office macros of macros.d, in that order.
func Core() []*runtime.Macro {
	ownerRepo := `"owner":{"type":"string","description":"repository owner (user or organisation)"},
"repo":{"type":"string","description":"repository name"}`
	mk := func(name, intent, desc string, risk runtime.Risk, params string, says ...string) *runtime.Macro {
		m := &runtime.Macro{Name: name, Intent: intent, Description: desc, Risk: risk, Params: json.RawMessage(params), Handler: Noop}
		for _, s := range says {
			m.Examples = append(m.Examples, runtime.Example{Say: s, Args: json.RawMessage(`{}`)})
		}
		return m
	}
	return []*runtime.Macro{
		mk("triage_pull_request",
			"triage a GitHub pull request: classify the change, suggest labels and a priority, optionally apply them",
			"Reads the pull request's title, body, changed files and checks, then proposes a type, a size, labels and a priority. Labels are only set when apply is true.",
			runtime.RiskAct, `{"type":"object","required":["owner","repo","number"],"properties":{`+ownerRepo+`,
"number":{"type":"integer","minimum":1,"description":"pull request number"},
"apply":{"type":"boolean","default":false,"description":"set the suggested labels on the pull request"}}}`,
			"triage pull request 512 in kubernetes/kubernetes",
			"label and prioritise PR #77 on rails/rails, and apply the labels",
			"what kind of change is PR 3301 in django/django?"),
		mk("triage_issue",
			"triage a GitHub issue: classify it as a bug, feature request or question, suggest labels and a priority, optionally apply them",
			"Reads the issue's title, body and comments, then proposes a kind, labels and a priority. Labels are only set when apply is true.",
			runtime.RiskAct, `{"type":"object","required":["owner","repo","number"],"properties":{`+ownerRepo+`,
"number":{"type":"integer","minimum":1,"description":"issue number"},
"apply":{"type":"boolean","default":false,"description":"set the suggested labels on the issue"}}}`,
			"triage issue 4410 in vercel/next.js",
			"is issue #98 in pallets/flask a bug or a feature request?",
			"label issue 231 on grafana/grafana and apply the labels"),
		mk("generate_release_notes",
			"write release notes for the changes between two refs of a GitHub repository",
			"Lists the pull requests merged between base and head and groups them into features, fixes and other changes, as Markdown.",
			runtime.RiskRead, `{"type":"object","required":["owner","repo","base","head"],"properties":{`+ownerRepo+`,
"base":{"type":"string","description":"older ref: tag, branch or commit"},
"head":{"type":"string","description":"newer ref: tag, branch or commit"},
"headingLevel":{"type":"integer","minimum":1,"maximum":6,"default":2,"description":"Markdown heading level of the sections"}}}`,
			"release notes for rust-lang/cargo from 0.80.0 to 0.81.0",
			"what changed in hashicorp/terraform between v1.8.0 and v1.9.0? write it up as a changelog",
			"draft the changelog for acme/api since v2.3.1 up to main"),
		mk("close_stale_issues",
			"find stale GitHub issues with no recent activity and close them, as a dry run unless told to apply",
			"Finds open issues older than minDaysOpen days with at most maxComments comments, skipping excluded labels. Lists them unless apply is true, then comments on and closes each one.",
			runtime.RiskDangerous, `{"type":"object","required":["owner","repo"],"properties":{`+ownerRepo+`,
"minDaysOpen":{"type":"integer","minimum":1,"default":90,"description":"only issues open at least this many days"},
"maxComments":{"type":"integer","minimum":0,"default":3,"description":"only issues with at most this many comments"},
"excludeLabels":{"type":"array","items":{"type":"string"},"default":["bug","security","pinned","good first issue"],"description":"never close issues with these labels"},
"apply":{"type":"boolean","default":false,"description":"really close them (otherwise only list)"},
"max":{"type":"integer","minimum":1,"default":200,"description":"close at most this many"}}}`,
			"close stale issues in acme/widgets that are older than 180 days",
			"clean up old inactive issues in octo/cli, dry run first",
			"which issues in foo/bar have gone stale? don't close anything yet"),
		mk("suggest_reviewers",
			"suggest who should review a GitHub pull request",
			"Ranks people by how often and how recently they changed the files the pull request touches, leaving out its author.",
			runtime.RiskRead, `{"type":"object","required":["owner","repo","number"],"properties":{`+ownerRepo+`,
"number":{"type":"integer","minimum":1,"description":"pull request number"},
"max":{"type":"integer","minimum":1,"maximum":10,"default":3,"description":"how many reviewers to suggest"}}}`,
			"who should review PR 88 in apache/kafka?",
			"suggest 2 reviewers for pull request #1402 on prometheus/prometheus",
			"find reviewers for spring-projects/spring-boot#3921"),
		mk("capture_workflow_log",
			"open a GitHub Actions workflow run in the browser and capture its log",
			"Opens the run's page, expands the failed job steps and returns the log text, cut to maxChars characters.",
			runtime.RiskRead, `{"type":"object","required":["owner","repo","runId"],"properties":{`+ownerRepo+`,
"runId":{"type":"integer","minimum":1,"description":"workflow run id"},
"maxChars":{"type":"integer","minimum":1,"default":50000,"description":"cut the log to this many characters"}}}`,
			"get the log of workflow run 9876543210 in acme/api",
			"why did CI fail? grab the Actions log for run 1122334455 in octo/site",
			"capture the build log from GitHub Actions run 55501 on foo/bar"),
		mk("login", "sign in to the back office with a username and a password",
			"Signs in on the login page and checks that the customer list opened.",
			runtime.RiskAct, `{"type":"object","required":["username","password"],"properties":{
"username":{"type":"string","minLength":1,"description":"the account name"},
"password":{"type":"string","minLength":1,"description":"the account password"}}}`,
			"log in as admin with password demo-password"),
		mk("add_customer", "add a customer record with a name, an email and a tier",
			"Opens the New customer dialog, fills it in and saves. Passes only when the server accepted the POST, the list grew by one row and the email shows up.",
			runtime.RiskAct, `{"type":"object","required":["name","email"],"properties":{
"name":{"type":"string","minLength":1,"description":"full name"},
"email":{"type":"string","format":"email","description":"contact email"},
"tier":{"type":"string","enum":["free","pro","enterprise"],"default":"free","description":"pricing tier"}}}`,
			"add Ada Lovelace, ada@example.com, on the pro tier",
			"new customer Grace Hopper with email grace@navy.example"),
		mk("find_customer", "search customers by name or email and list the matches",
			"Types the query into the customer search and reads the rows that remain.",
			runtime.RiskRead, `{"type":"object","required":["query"],"properties":{
"query":{"type":"string","minLength":1,"description":"part of a name or an email"}}}`,
			"find ada", "look up the customer with email ops@initech.example"),
		mk("list_orders", "list orders, optionally only those with a given status, and count them",
			"Filters the order list by status and reads the first page of rows and the summary line.",
			runtime.RiskRead, `{"type":"object","properties":{
"status":{"type":"string","enum":["all","pending","paid","shipped","cancelled"],"default":"all","description":"which orders to show"}}}`,
			"how many orders are pending?", "show me all orders"),
		mk("update_settings", "turn email notifications, the weekly report and dark mode on or off",
			"Sets the three settings checkboxes and saves; passes when the server stored them.",
			runtime.RiskAct, `{"type":"object","required":["email_notifications","weekly_report","dark_mode"],"properties":{
"email_notifications":{"type":"boolean"},"weekly_report":{"type":"boolean"},"dark_mode":{"type":"boolean"}}}`,
			"turn on dark mode and the weekly report, no emails"),
		mk("export_orders", "export orders with a given status through the JSON API and report how many there are",
			"Calls the export endpoint directly (no page) and returns the count and the order ids.",
			runtime.RiskRead, `{"type":"object","properties":{
"status":{"type":"string","enum":["all","pending","paid","shipped","cancelled"],"default":"all"}}}`,
			"export all shipped orders"),
	}
}

// GitHubCore names the six benchmark macros.
var GitHubCore = []string{"triage_pull_request", "triage_issue", "generate_release_notes", "close_stale_issues", "suggest_reviewers", "capture_workflow_log"}

// synDomain is a business area with its own system and vocabulary.
type synDomain struct {
	key, sys, ext string
	ents          []string // subjects of requests: customers, people, repositories...
	objects       []synObject
	custom        []synCustom
}

// synObject is a thing macros act on; verbs names the synVerbs that apply.
type synObject struct {
	key, one, many, alt string
	idParam, idPrefix   string
	states, fields      []string
	verbs               string
}

// synCustom is a domain-specific macro that no verb template fits.
type synCustom struct {
	name, intent, desc, params string
	says                       []string
}

// synVerb is an action template; name is the macro name pattern.
type synVerb struct {
	name, intent, desc string
	says               []string
	params             func(o synObject, d synDomain) string
}

func synIDProp(o synObject) string {
	return fmt.Sprintf(`%q:{"type":"string","minLength":1,"description":"id of the %s"}`, o.idParam, o.one)
}

func synProps(required []string, ps ...string) string {
	req := ""
	if len(required) > 0 {
		b, _ := json.Marshal(required)
		req = `"required":` + string(b) + `,`
	}
	return `{"type":"object",` + req + `"properties":{` + strings.Join(ps, ",") + `}}`
}

func synWithID(extra ...string) func(o synObject, d synDomain) string {
	return func(o synObject, d synDomain) string {
		return synProps([]string{o.idParam}, append([]string{synIDProp(o)}, extra...)...)
	}
}

func synEnum(vs []string) string { b, _ := json.Marshal(vs); return string(b) }

var synVerbs = map[string]synVerb{
	"list": {"list_{keys}", "list {many} in {sys}, optionally only those with a given status",
		"Opens the {many} view, filters it by status and reads the rows of the first page.",
		[]string{"show me all {state} {objs}", "list the {objs} for {ent}", "which {objs} are {state} right now?", "pull up the {objs} from last week", "how many {state} {objs} do we have?"},
		func(o synObject, d synDomain) string {
			return synProps(nil, fmt.Sprintf(`"status":{"type":"string","enum":%s,"default":"all","description":"only %s with this status"}`, synEnum(append([]string{"all"}, o.states...)), o.many),
				`"limit":{"type":"integer","minimum":1,"default":50,"description":"maximum number of rows"}`)
		}},
	"get": {"get_{key}", "show one {one} with all its details",
		"Looks the {one} up by id in {sys} and returns every field.",
		[]string{"show me {one} {id}", "open {obj} {id}", "what's on {one} {id}?", "give me the details of {obj} {id}"},
		synWithID()},
	"create": {"create_{key}", "create a new {one} in {sys}",
		"Fills in the new {one} form and saves; passes when {sys} shows the new {one}.",
		[]string{"create a {one} for {ent}", "add a new {obj} for {ent}", "set up a {one} for {ent}, starting {when}", "new {obj}: {ent}"},
		func(o synObject, d synDomain) string {
			return synProps([]string{"name"}, fmt.Sprintf(`"name":{"type":"string","minLength":1,"description":"name or title of the %s"}`, o.one),
				`"notes":{"type":"string","description":"free-text notes"}`)
		}},
	"update": {"update_{key}", "change one or more fields of an existing {one}",
		"Edits the {one} in {sys} and checks that the saved values stuck.",
		[]string{"change the {field} of {one} {id} to {val}", "update {obj} {id}: {field} is now {val}", "set the {field} on {one} {id} to {val}", "fix the {field} on {obj} {id}"},
		func(o synObject, d synDomain) string {
			return synWithID(fmt.Sprintf(`"field":{"type":"string","enum":%s,"description":"which field to change"}`, synEnum(o.fields)),
				`"value":{"type":"string","description":"the new value"}`)(o, d)
		}},
	"delete": {"delete_{key}", "permanently delete a {one}",
		"Deletes the {one} from {sys} after checking that it exists; this cannot be undone.",
		[]string{"delete {one} {id}", "remove {obj} {id} for good", "get rid of the {one} {id}", "please erase {one} {id}"},
		synWithID(`"confirm":{"type":"boolean","default":false,"description":"really delete"}`)},
	"archive": {"archive_{key}", "archive a {one} so it leaves the active lists",
		"Moves the {one} to the archive in {sys}; it can be restored later.",
		[]string{"archive {one} {id}", "move {obj} {id} to the archive", "we're done with {one} {id}, archive it", "hide {one} {id} from the active list"},
		synWithID()},
	"restore": {"restore_{key}", "restore an archived or deleted {one}",
		"Brings the {one} back from the archive or the trash in {sys}.",
		[]string{"restore {one} {id}", "bring back the archived {obj} {id}", "undo the archiving of {one} {id}", "unarchive {one} {id}"},
		synWithID()},
	"export": {"export_{keys}", "export {many} to a CSV or JSON file",
		"Runs the export in {sys} for the chosen status and returns the file and its row count.",
		[]string{"export all {state} {objs} to csv", "download the {objs} for {ent} as a spreadsheet", "give me a json export of the {objs}", "dump every {one} into a file"},
		func(o synObject, d synDomain) string {
			return synProps(nil, fmt.Sprintf(`"status":{"type":"string","enum":%s,"default":"all"}`, synEnum(append([]string{"all"}, o.states...))),
				`"format":{"type":"string","enum":["csv","json"],"default":"csv","description":"file format"}`)
		}},
	"import": {"import_{keys}", "import {many} from a CSV file",
		"Uploads the file to the {sys} importer, maps the columns and reports created, updated and rejected rows.",
		[]string{"import these {objs} from {file}", "load the {objs} in {file} into {sys}", "bulk upload {objs} from {file}", "upload {file} as new {objs}"},
		func(o synObject, d synDomain) string {
			return synProps([]string{"file"}, `"file":{"type":"string","description":"path of the CSV file"}`,
				`"dryRun":{"type":"boolean","default":true,"description":"only check the file"}`)
		}},
	"search": {"search_{keys}", "search {many} by keyword",
		"Types the keywords into the {sys} search box and lists the matching {many}.",
		[]string{"find {objs} mentioning {ent}", "search {objs} for \"{kw}\"", "look for any {obj} about {kw}", "is there a {one} for {ent}?"},
		func(o synObject, d synDomain) string {
			return synProps([]string{"query"}, `"query":{"type":"string","minLength":1,"description":"keywords"}`)
		}},
	"assign": {"assign_{key}", "assign a {one} to a person or a team",
		"Sets the {one}'s assignee in {sys} and notifies them.",
		[]string{"assign {one} {id} to {who}", "give {obj} {id} to {who}", "{who} should own {one} {id}", "hand {obj} {id} over to {who}"},
		synWithID(`"assignee":{"type":"string","description":"person or team"}`)},
	"approve": {"approve_{key}", "approve a pending {one}",
		"Approves the {one} in {sys} and records who approved it.",
		[]string{"approve {one} {id}", "sign off on {obj} {id}", "{one} {id} looks good, approve it", "green-light {obj} {id}"},
		synWithID(`"note":{"type":"string","description":"optional approval note"}`)},
	"reject": {"reject_{key}", "reject a pending {one} with a reason",
		"Rejects the {one} in {sys} and sends the reason to whoever submitted it.",
		[]string{"reject {one} {id}, reason: {reason}", "decline {obj} {id}", "turn down {one} {id} because {reason}", "deny {obj} {id}"},
		synWithID(`"reason":{"type":"string","description":"why it was rejected"}`)},
	"cancel": {"cancel_{key}", "cancel a {one} that has not completed yet",
		"Cancels the {one} in {sys} and checks that its status changed to cancelled.",
		[]string{"cancel {one} {id}", "call off {obj} {id}", "stop {one} {id}, we don't need it any more", "{ent} wants to cancel their {obj}"},
		synWithID(`"reason":{"type":"string","description":"why it is cancelled"}`)},
	"send": {"send_{key}", "send a {one} to its recipient by email",
		"Emails the {one} from {sys} and records the delivery.",
		[]string{"send {one} {id} to {email}", "email the {obj} to {ent}", "forward {one} {id} to {email}", "mail {ent} their {obj}"},
		synWithID(`"to":{"type":"string","format":"email","description":"recipient address"}`, `"message":{"type":"string","description":"cover note"}`)},
	"close": {"close_{key}", "close an open {one}",
		"Closes the {one} in {sys} with a resolution note.",
		[]string{"close {one} {id}", "mark {obj} {id} as done", "{one} {id} is resolved, close it", "wrap up {obj} {id}"},
		synWithID(`"resolution":{"type":"string","description":"why it is closed"}`)},
	"reopen": {"reopen_{key}", "reopen a closed {one}",
		"Reopens the {one} in {sys} and puts it back in the queue.",
		[]string{"reopen {one} {id}", "{obj} {id} isn't done after all, open it again", "undo closing {one} {id}"},
		synWithID()},
	"comment": {"comment_on_{key}", "add a comment to a {one}",
		"Posts a comment on the {one} in {sys} as the signed-in user.",
		[]string{"comment on {one} {id}: {msg}", "add a note to {obj} {id} saying {msg}", "reply on {one} {id} with \"{msg}\"", "leave a comment on {obj} {id}"},
		synWithID(`"body":{"type":"string","minLength":1,"description":"comment text"}`)},
	"tag": {"tag_{key}", "add or remove tags on a {one}",
		"Edits the {one}'s tags in {sys}.",
		[]string{"tag {one} {id} as {tag}", "add the {tag} tag to {obj} {id}", "remove the {tag} tag from {one} {id}", "mark {obj} {id} {tag}"},
		synWithID(`"add":{"type":"array","items":{"type":"string"},"description":"tags to add"}`, `"remove":{"type":"array","items":{"type":"string"},"description":"tags to remove"}`)},
	"schedule": {"schedule_{key}", "schedule a {one} for a date and time",
		"Sets the date and time of the {one} in {sys} and notifies the people involved.",
		[]string{"schedule {one} {id} for {when}", "book the {obj} for {ent} {when}", "plan a {one} for {ent} {when}", "put the {obj} for {ent} on the calendar {when}"},
		func(o synObject, d synDomain) string {
			return synProps([]string{"at"}, `"at":{"type":"string","format":"date-time","description":"start time"}`,
				`"with":{"type":"array","items":{"type":"string"},"description":"people to invite"}`)
		}},
	"report": {"summarize_{keys}", "summarise {many} by status with totals for a period",
		"Aggregates {many} in {sys} over the period and returns counts and totals per status.",
		[]string{"give me a summary of {objs} for {period}", "how did {objs} look {period}?", "report on {state} {objs} {period}", "totals for {objs} by status {period}"},
		func(o synObject, d synDomain) string {
			return synProps(nil, `"period":{"type":"string","enum":["this_week","last_week","this_month","last_month","this_quarter"],"default":"this_month"}`)
		}},
	"merge": {"merge_{keys}", "merge two duplicate {many} into one",
		"Combines the duplicate into the primary {one} in {sys}, keeping the history of both.",
		[]string{"merge {one} {id} into {id2}", "{objs} {id} and {id2} are duplicates, combine them", "dedupe {objs} {id} and {id2}"},
		func(o synObject, d synDomain) string {
			return synProps([]string{"primaryId", "duplicateId"}, `"primaryId":{"type":"string","description":"the record to keep"}`,
				`"duplicateId":{"type":"string","description":"the record to fold into it"}`)
		}},
	"copy": {"copy_{key}", "make a copy of a {one}",
		"Duplicates the {one} in {sys}, with a new name.",
		[]string{"copy {one} {id}", "duplicate {obj} {id} for {ent}", "clone {one} {id}"},
		synWithID(`"name":{"type":"string","description":"name of the copy"}`)},
	"remind": {"remind_about_{key}", "send a reminder about an overdue {one}",
		"Sends the owner of the {one} a reminder from {sys}.",
		[]string{"remind {ent} about {one} {id}", "nudge {who} about the overdue {obj}", "chase up {one} {id}"},
		synWithID()},
	"sync": {"sync_{keys}", "sync {many} from {ext} into {sys}",
		"Pulls changed {many} from {ext} and updates {sys}, reporting what changed.",
		[]string{"sync {objs} from {ext}", "pull the latest {objs} from {ext}", "refresh the {objs} from {ext} now"},
		func(o synObject, d synDomain) string {
			return synProps(nil, `"since":{"type":"string","format":"date","description":"only changes after this date"}`)
		}},
}

var (
	synPeople  = []string{"Priya", "Marcus", "the platform team", "Sofia Rossi", "Ken", "the night shift", "Amara Okafor", "Li Wei"}
	synWhen    = []string{"next Tuesday at 10am", "tomorrow morning", "on March 3rd", "Friday afternoon", "in two weeks"}
	synVals    = []string{"Q4", "next Monday", "enterprise", "$1,200", "high", "Berlin"}
	synKW      = []string{"refund", "late delivery", "onboarding", "pricing", "outage", "renewal"}
	synPeriods = []string{"last month", "this quarter", "last week", "this year"}
	synTags    = []string{"urgent", "vip", "follow-up", "needs-info"}
	synMsgs    = []string{"thanks, looking into it", "please double-check the totals", "waiting on legal", "done on our side"}
	synReasons = []string{"it's a duplicate", "over budget", "missing details", "wrong team"}
	synFiles   = []string{"the attached spreadsheet", "batch-07.csv", "import.csv", "the file I sent"}
	synEmails  = []string{"jane@acme.example", "ops@globex.example", "finance@initech.example"}
)

func synObj(key, one, alt, idParam, idPrefix, states, fields, verbs string) synObject {
	many := one + "s"
	if i := strings.IndexByte(one, '|'); i >= 0 {
		one, many = one[:i], one[i+1:]
	}
	return synObject{key: key, one: one, many: many, alt: alt, idParam: idParam, idPrefix: idPrefix,
		states: strings.Fields(states), fields: strings.Split(fields, ","), verbs: verbs}
}

// synDomains is the distractor vocabulary: 19 business areas, each with
// objects and the verbs that make sense for them, plus a few one-off macros.
var synDomains = []synDomain{
	{key: "crm", sys: "the CRM", ext: "HubSpot", ents: []string{"Acme Corp", "Globex", "Jane Doe", "Initech"},
		objects: []synObject{
			synObj("contact", "contact", "person", "contact_id", "C-", "active unsubscribed bounced", "email,phone,company,job title", "list get create update delete merge export import search tag assign"),
			synObj("lead", "lead", "prospect", "lead_id", "L-", "new qualified disqualified", "source,score,owner", "list get create update assign approve reject export import search tag"),
			synObj("deal", "deal", "opportunity", "deal_id", "D-", "open won lost", "amount,stage,close date", "list get create update close reopen assign report comment export"),
			synObj("company", "company|companies", "account", "company_id", "CO-", "customer prospect churned", "industry,size,website", "list get create update merge archive search tag export"),
			synObj("call_log", "call log", "call", "call_id", "CL-", "logged missed", "duration,outcome", "list create comment search report"),
		},
		custom: []synCustom{
			{"log_sales_activity", "log a sales call, meeting or email against a contact", "Adds an activity to the contact's timeline in the CRM.", `{"type":"object","properties":{"contact":{"type":"string"},"kind":{"type":"string","enum":["call","meeting","email"]}}}`,
				[]string{"log a call with Jane Doe from this morning", "record that I met Globex yesterday"}},
			{"enrich_contact", "fill in a contact's company, title and social profiles from public data", "Looks the email up with the enrichment provider and updates the CRM record.", `{"type":"object","required":["email"],"properties":{"email":{"type":"string","format":"email"}}}`,
				[]string{"enrich the contact jane@acme.example", "find out more about the person behind ops@globex.example"}},
		}},
	{key: "billing", sys: "the billing system", ext: "Stripe", ents: []string{"Acme Corp", "Umbrella", "Stark Industries", "Wayne Enterprises"},
		objects: []synObject{
			synObj("invoice", "invoice", "bill", "invoiceId", "INV-", "draft open paid overdue void", "due date,amount,memo", "list get create update send cancel remind export report approve comment"),
			synObj("subscription", "subscription", "plan", "subscriptionId", "SUB-", "trialing active past_due cancelled", "plan,quantity,billing cycle", "list get create update cancel restore report export"),
			synObj("payment", "payment", "charge", "paymentId", "PAY-", "succeeded failed refunded", "amount,method", "list get search export report sync"),
			synObj("refund", "refund", "money back", "refundId", "RF-", "requested approved rejected", "amount,reason", "list get create approve reject report"),
			synObj("coupon", "coupon", "voucher", "couponId", "CPN-", "active expired", "percent off,expiry", "list create update delete archive"),
			synObj("credit_note", "credit note", "credit memo", "creditNoteId", "CN-", "issued void", "amount,reason", "list get create send"),
		},
		custom: []synCustom{
			{"retry_failed_payment", "retry a failed card payment", "Asks the payment provider to charge the card again and reports the outcome.", `{"type":"object","required":["paymentId"],"properties":{"paymentId":{"type":"string"}}}`,
				[]string{"retry the failed payment PAY-2231", "charge Umbrella's card again, it bounced yesterday"}},
			{"change_billing_plan", "move a customer to another pricing plan", "Changes the subscription's plan with proration.", `{"type":"object","required":["customer","plan"],"properties":{"customer":{"type":"string"},"plan":{"type":"string","enum":["free","pro","enterprise"]}}}`,
				[]string{"upgrade Acme Corp to the enterprise plan", "downgrade Stark Industries to free"}},
		}},
	{key: "github", sys: "GitHub", ext: "GitHub", ents: []string{"acme/api", "octo/site", "foo/bar", "our monorepo"},
		objects: []synObject{
			synObj("issue", "issue", "bug report", "number", "#", "open closed", "title,milestone,assignee", "list get create update close reopen assign comment tag search export"),
			synObj("pull_request", "pull request", "PR", "number", "#", "open merged closed draft", "title,base branch,reviewers", "list get create close reopen comment assign tag approve"),
			synObj("release", "release", "tag", "tag", "v", "published draft", "name,body", "list get create delete"),
			synObj("workflow_run", "workflow run", "CI run", "runId", "", "queued in_progress success failure", "", "list get cancel"),
			synObj("branch", "branch|branches", "", "branch", "", "active stale", "", "list create delete"),
			synObj("label", "label", "", "name", "", "", "color,description", "list create update delete"),
			synObj("milestone", "milestone", "", "milestone", "", "open closed", "due date,title", "list create update close"),
		},
		custom: []synCustom{
			{"merge_pull_request", "merge a GitHub pull request once its checks pass", "Merges with the chosen method and deletes the head branch.", `{"type":"object","required":["owner","repo","number"],"properties":{"owner":{"type":"string"},"repo":{"type":"string"},"number":{"type":"integer"},"method":{"type":"string","enum":["merge","squash","rebase"]}}}`,
				[]string{"merge PR 412 in acme/api", "squash and merge pull request #90 on octo/site"}},
			{"request_review", "ask specific people to review a GitHub pull request", "Adds the named users or teams as requested reviewers.", `{"type":"object","required":["owner","repo","number","reviewers"],"properties":{"owner":{"type":"string"},"repo":{"type":"string"},"number":{"type":"integer"},"reviewers":{"type":"array","items":{"type":"string"}}}}`,
				[]string{"ask @dana and @lee to review PR 77 in foo/bar", "request a review from the security team on acme/api#301"}},
			{"rerun_workflow", "re-run a failed GitHub Actions workflow run", "Re-runs the failed jobs of the run and waits for them to start.", `{"type":"object","required":["owner","repo","runId"],"properties":{"owner":{"type":"string"},"repo":{"type":"string"},"runId":{"type":"integer"}}}`,
				[]string{"rerun the failed CI run 5512 in acme/api", "kick off the Actions workflow again for octo/site run 8810"}},
			{"download_workflow_artifact", "download an artifact produced by a GitHub Actions run", "Fetches the named artifact zip of the run.", `{"type":"object","required":["owner","repo","runId","name"],"properties":{"owner":{"type":"string"},"repo":{"type":"string"},"runId":{"type":"integer"},"name":{"type":"string"}}}`,
				[]string{"download the coverage artifact from run 7781 in foo/bar", "get the build output zip of the last Actions run on acme/api"}},
			{"list_contributors", "list a GitHub repository's contributors by number of commits", "Reads the contributors graph of the repository.", `{"type":"object","required":["owner","repo"],"properties":{"owner":{"type":"string"},"repo":{"type":"string"}}}`,
				[]string{"who contributes most to octo/site?", "list the top committers of acme/api"}},
			{"compare_commits", "compare two refs of a GitHub repository and list the commits between them", "Shows the commits and changed files between base and head.", `{"type":"object","required":["owner","repo","base","head"],"properties":{"owner":{"type":"string"},"repo":{"type":"string"},"base":{"type":"string"},"head":{"type":"string"}}}`,
				[]string{"what commits are between v1.2 and main in acme/api?", "diff release-3 against release-4 on foo/bar"}},
			{"protect_branch", "turn on branch protection rules for a GitHub branch", "Requires reviews and passing checks before merging into the branch.", `{"type":"object","required":["owner","repo","branch"],"properties":{"owner":{"type":"string"},"repo":{"type":"string"},"branch":{"type":"string"},"requiredReviews":{"type":"integer"}}}`,
				[]string{"protect main in acme/api with 2 required reviews", "lock down the release branch on octo/site"}},
		}},
	{key: "hr", sys: "the HR system", ext: "Workday", ents: []string{"Sofia Rossi", "Marcus Lee", "the Berlin office", "the sales team"},
		objects: []synObject{
			synObj("employee", "employee", "staff member", "employee_id", "EMP-", "active on_leave terminated", "title,manager,salary,location", "list get create update archive search export import"),
			synObj("time_off_request", "time-off request", "vacation request", "request_id", "TO-", "pending approved rejected", "start date,end date", "list get create approve reject cancel report"),
			synObj("payslip", "payslip", "pay stub", "payslip_id", "PS-", "issued corrected", "", "list get send"),
			synObj("job_opening", "job opening", "job posting", "opening_id", "JOB-", "open filled closed", "title,location,salary range", "list create update close reopen archive copy"),
			synObj("candidate", "candidate", "applicant", "candidate_id", "CAND-", "applied interviewing offered hired rejected", "stage,rating", "list get create update reject assign search tag comment"),
			synObj("performance_review", "performance review", "appraisal", "review_id", "PR-", "draft submitted signed", "rating,summary", "list create schedule remind"),
		},
		custom: []synCustom{
			{"onboard_new_hire", "start onboarding for a new hire: accounts, laptop and first-week plan", "Creates the onboarding checklist and the IT tickets for the new hire.", `{"type":"object","required":["name","start_date"],"properties":{"name":{"type":"string"},"start_date":{"type":"string","format":"date"}}}`,
				[]string{"onboard Li Wei starting next Monday", "get everything ready for our new engineer Amara"}},
			{"offboard_employee", "offboard a leaving employee: revoke access and collect equipment", "Disables accounts and opens the equipment-return tasks.", `{"type":"object","required":["employee_id"],"properties":{"employee_id":{"type":"string"}}}`,
				[]string{"offboard Ken, his last day is Friday", "Marcus is leaving, remove his access"}},
		}},
	{key: "support", sys: "the helpdesk", ext: "Zendesk", ents: []string{"Acme Corp", "a VIP customer", "Jane Doe", "Globex"},
		objects: []synObject{
			synObj("ticket", "ticket", "case", "ticketId", "T-", "new open pending solved", "priority,group,subject", "list get create update close reopen assign comment tag merge search export report"),
			synObj("saved_reply", "saved reply|saved replies", "canned response", "replyId", "SR-", "", "title,body", "list create update delete"),
			synObj("sla_policy", "SLA policy|SLA policies", "SLA", "policyId", "SLA-", "active", "first reply time,resolution time", "list get update"),
			synObj("satisfaction_survey", "satisfaction survey", "CSAT survey", "surveyId", "CSAT-", "sent answered", "", "list send report"),
			synObj("help_article", "help-center article", "KB article", "articleId", "KB-", "draft published", "title,body,section", "list create update archive search approve"),
		},
		custom: []synCustom{
			{"escalate_ticket", "escalate a support ticket to tier 2 or engineering", "Raises the priority and moves the ticket to the escalation group with a summary.", `{"type":"object","required":["ticketId"],"properties":{"ticketId":{"type":"string"},"to":{"type":"string","enum":["tier2","engineering"]}}}`,
				[]string{"escalate ticket T-2231 to engineering", "this case needs tier 2, bump it up"}},
			{"draft_ticket_reply", "draft a reply to a customer's support ticket", "Writes a reply from the ticket history and the help center; leaves it as a draft.", `{"type":"object","required":["ticketId"],"properties":{"ticketId":{"type":"string"},"tone":{"type":"string"}}}`,
				[]string{"draft an answer to ticket T-5512", "write a polite response to Jane Doe's case"}},
		}},
	{key: "inventory", sys: "the inventory system", ext: "the ERP", ents: []string{"the Berlin warehouse", "SKU-1140 blue mugs", "Acme Supplies", "the spring collection"},
		objects: []synObject{
			synObj("product", "product", "SKU", "sku", "SKU-", "active discontinued", "price,weight,description", "list get create update archive restore search export import tag"),
			synObj("stock_level", "stock level", "inventory count", "sku", "SKU-", "low out_of_stock", "quantity", "list update report sync export"),
			synObj("warehouse", "warehouse", "depot", "warehouse_id", "WH-", "active closed", "address,capacity", "list get create update"),
			synObj("purchase_order", "purchase order", "PO", "po_number", "PO-", "draft sent received", "quantity,supplier,delivery date", "list get create update approve cancel send close"),
			synObj("supplier", "supplier", "vendor", "supplier_id", "SUP-", "active blocked", "contact,terms", "list get create update archive search"),
			synObj("stock_transfer", "stock transfer", "transfer", "transfer_id", "TR-", "requested in_transit done", "quantity", "list create approve cancel"),
		},
		custom: []synCustom{
			{"reorder_low_stock", "create purchase orders for every product below its reorder point", "Checks stock against reorder points and drafts one purchase order per supplier.", `{"type":"object","properties":{"warehouse":{"type":"string"}}}`,
				[]string{"reorder anything that's running low", "we're low on mugs in Berlin, restock what's needed"}},
			{"count_inventory", "start a cycle count for a warehouse section", "Opens a count sheet for the bins of the section.", `{"type":"object","required":["warehouse"],"properties":{"warehouse":{"type":"string"},"section":{"type":"string"}}}`,
				[]string{"start a stock count in aisle 4 of the Berlin warehouse", "cycle count section B"}},
		}},
	{key: "shipping", sys: "the shipping dashboard", ext: "ShipStation", ents: []string{"Acme Corp", "the Paris customer", "order 5521", "Jane Doe"},
		objects: []synObject{
			synObj("shipment", "shipment", "package", "shipment_id", "SH-", "label_created in_transit delivered exception", "carrier,service,address", "list get create update cancel search export report"),
			synObj("shipping_label", "shipping label", "label", "label_id", "LBL-", "created voided", "", "create cancel copy"),
			synObj("carrier_pickup", "carrier pickup", "pickup", "pickup_id", "PU-", "scheduled done", "", "list schedule cancel"),
			synObj("return", "return", "RMA", "rma", "RMA-", "requested received refunded", "reason,condition", "list get create approve reject close"),
			synObj("delivery_route", "delivery route", "route", "route_id", "RT-", "planned driving done", "driver,stops", "list create update assign"),
		},
		custom: []synCustom{
			{"track_package", "track a parcel by its tracking number", "Asks the carrier for the latest scan events.", `{"type":"object","required":["tracking_number"],"properties":{"tracking_number":{"type":"string"}}}`,
				[]string{"where is package 1Z999AA10123456784?", "track the parcel for order 5521"}},
			{"compare_shipping_rates", "compare carrier rates for a parcel", "Quotes every connected carrier for the weight and destination.", `{"type":"object","required":["weight_kg","to"],"properties":{"weight_kg":{"type":"number"},"to":{"type":"string"}}}`,
				[]string{"what's the cheapest way to ship 2kg to Paris?", "compare rates for a 10kg box to Chicago"}},
		}},
	{key: "marketing", sys: "the marketing platform", ext: "Mailchimp", ents: []string{"the spring sale", "our newsletter subscribers", "VIP customers", "the Berlin launch"},
		objects: []synObject{
			synObj("campaign", "campaign", "promo", "campaign_id", "CMP-", "draft scheduled sent", "subject,audience,send time", "list get create update schedule cancel copy report archive"),
			synObj("newsletter", "newsletter", "mailing", "newsletter_id", "NL-", "draft sent", "subject,body", "list create send schedule copy"),
			synObj("audience_segment", "audience segment", "segment", "segment_id", "SEG-", "", "rules,name", "list create update delete export"),
			synObj("landing_page", "landing page", "page", "page_id", "LP-", "draft live", "headline,url", "list create update archive copy"),
			synObj("discount_code", "discount code", "promo code", "code", "", "active expired", "percent,expiry", "list create update delete"),
		},
		custom: []synCustom{
			{"ab_test_subject_line", "run an A/B test of two email subject lines", "Sends each variant to a sample and the winner to the rest.", `{"type":"object","required":["a","b"],"properties":{"a":{"type":"string"},"b":{"type":"string"}}}`,
				[]string{"A/B test two subject lines for the spring sale", "try 'Last chance' against 'Ends tonight' as subjects"}},
		}},
	{key: "analytics", sys: "the analytics tool", ext: "the data warehouse", ents: []string{"signups", "the checkout flow", "weekly revenue", "mobile users"},
		objects: []synObject{
			synObj("dashboard", "dashboard", "board", "dashboard_id", "DB-", "", "title,filters", "list get create update delete copy send"),
			synObj("saved_query", "saved query|saved queries", "query", "query_id", "Q-", "", "sql,title", "list get create update delete"),
			synObj("metric_alert", "metric alert", "alert", "alert_id", "AL-", "ok firing muted", "threshold,metric", "list create update delete"),
			synObj("funnel", "funnel", "conversion funnel", "funnel_id", "F-", "", "steps", "list get create"),
			synObj("experiment", "experiment", "A/B test", "experiment_id", "EXP-", "running stopped", "variants,traffic", "list get create close report"),
		},
		custom: []synCustom{
			{"chart_metric", "chart a metric over time", "Draws the metric for the chosen range and breakdown.", `{"type":"object","required":["metric"],"properties":{"metric":{"type":"string"},"range":{"type":"string"}}}`,
				[]string{"chart daily signups for the last 30 days", "plot weekly revenue this year"}},
			{"explain_metric_change", "explain why a metric moved", "Breaks the change down by segment and finds the largest contributors.", `{"type":"object","required":["metric"],"properties":{"metric":{"type":"string"}}}`,
				[]string{"why did conversions drop yesterday?", "what's behind the spike in mobile users?"}},
		}},
	{key: "calendar", sys: "the calendar", ext: "Google Calendar", ents: []string{"Priya", "the design team", "the Acme account team", "Marcus"},
		objects: []synObject{
			synObj("meeting", "meeting", "call", "meeting_id", "M-", "upcoming past", "time,attendees,agenda", "list schedule cancel update"),
			synObj("calendar_event", "calendar event", "event", "event_id", "EV-", "upcoming past", "time,location", "list create update delete"),
			synObj("room_booking", "room booking", "meeting room", "booking_id", "RB-", "booked released", "room,time", "list create cancel"),
			synObj("out_of_office", "out-of-office notice", "OOO", "notice_id", "OOO-", "", "message,dates", "create cancel"),
		},
		custom: []synCustom{
			{"find_meeting_slot", "find a time when everyone is free", "Checks the attendees' calendars and proposes the first free slots.", `{"type":"object","required":["attendees"],"properties":{"attendees":{"type":"array","items":{"type":"string"}},"minutes":{"type":"integer"}}}`,
				[]string{"when are Priya and Marcus both free this week?", "find 30 minutes for the design team tomorrow"}},
		}},
	{key: "devops", sys: "the cloud console", ext: "Terraform", ents: []string{"the api service", "production", "staging", "the eu-west cluster"},
		objects: []synObject{
			synObj("deployment", "deployment", "deploy", "deployment_id", "DEP-", "running succeeded failed rolled_back", "version,environment", "list get create cancel"),
			synObj("server", "server", "VM", "server_id", "SRV-", "running stopped", "size,region", "list get create delete tag"),
			synObj("incident", "incident", "outage", "incident_id", "INC-", "triggered acknowledged resolved", "severity,commander", "list get create update close assign comment report"),
			synObj("dns_record", "DNS record", "DNS entry", "record_id", "DNS-", "", "value,ttl", "list create update delete"),
			synObj("backup", "backup", "snapshot", "backup_id", "BK-", "completed failed", "", "list create restore delete"),
			synObj("alert_rule", "alert rule", "monitor", "rule_id", "AR-", "enabled disabled", "threshold,channel", "list create update delete"),
		},
		custom: []synCustom{
			{"rollback_deployment", "roll a service back to its previous release", "Redeploys the last good version and waits for health checks.", `{"type":"object","required":["service"],"properties":{"service":{"type":"string"},"environment":{"type":"string"}}}`,
				[]string{"roll back the api service in production", "the last deploy broke checkout, revert it"}},
			{"scale_service", "change the number of replicas of a service", "Scales the deployment and waits until the replicas are ready.", `{"type":"object","required":["service","replicas"],"properties":{"service":{"type":"string"},"replicas":{"type":"integer"}}}`,
				[]string{"scale the api service to 6 replicas", "we need more workers in staging, go to 4"}},
			{"tail_service_logs", "show the latest log lines of a service", "Streams the most recent log lines of the service's pods.", `{"type":"object","required":["service"],"properties":{"service":{"type":"string"},"lines":{"type":"integer"}}}`,
				[]string{"show me the last 200 log lines of the api service", "what is the worker printing in its logs?"}},
			{"restart_service", "restart a service's pods one by one", "Performs a rolling restart of the service.", `{"type":"object","required":["service"],"properties":{"service":{"type":"string"}}}`,
				[]string{"restart the api service", "bounce the workers in staging"}},
		}},
	{key: "security", sys: "the identity provider", ext: "Okta", ents: []string{"Priya", "the contractors group", "Ken", "the finance team"},
		objects: []synObject{
			synObj("user_account", "user account", "user", "user_id", "U-", "active suspended deprovisioned", "email,department", "list get create update delete search"),
			synObj("api_key", "API key", "token", "key_id", "KEY-", "active revoked", "scopes,expiry", "list create delete"),
			synObj("role", "role", "permission set", "role_id", "ROLE-", "", "permissions", "list create update delete assign"),
			synObj("access_request", "access request", "permission request", "request_id", "AR-", "pending granted denied", "", "list get approve reject"),
			synObj("audit_event", "audit event", "audit log entry", "event_id", "AUD-", "", "", "list search export"),
		},
		custom: []synCustom{
			{"reset_password", "reset a user's password and email them a reset link", "Expires the password and sends a one-time reset link.", `{"type":"object","required":["user"],"properties":{"user":{"type":"string"}}}`,
				[]string{"reset Ken's password", "Priya is locked out, send her a password reset"}},
			{"sign_out_everywhere", "sign a user out of every session and device", "Revokes all of the user's sessions and refresh tokens.", `{"type":"object","required":["user"],"properties":{"user":{"type":"string"}}}`,
				[]string{"log Ken out of all his devices", "kill every session of the stolen laptop's user"}},
			{"enforce_mfa", "require two-factor authentication for a group", "Turns on the MFA policy for the group.", `{"type":"object","required":["group"],"properties":{"group":{"type":"string"}}}`,
				[]string{"turn on 2FA for the contractors group", "require MFA for the finance team"}},
		}},
	{key: "finance", sys: "the accounting system", ext: "QuickBooks", ents: []string{"the marketing department", "Acme Supplies", "the Berlin office", "Q3"},
		objects: []synObject{
			synObj("expense_report", "expense report", "expense claim", "report_id", "EXP-", "submitted approved rejected paid", "amount,category", "list get create approve reject remind export"),
			synObj("budget", "budget", "spending plan", "budget_id", "BUD-", "draft approved", "amount,owner", "list get create update approve report"),
			synObj("journal_entry", "journal entry|journal entries", "ledger entry", "entry_id", "JE-", "draft posted", "account,amount,memo", "list create approve export"),
			synObj("vendor_bill", "vendor bill", "payable", "bill_id", "VB-", "open paid overdue", "due date,amount", "list get create approve export"),
			synObj("bank_transaction", "bank transaction", "bank line", "transaction_id", "BT-", "unmatched matched", "category", "list search sync export"),
		},
		custom: []synCustom{
			{"close_books", "close the accounting period", "Locks the period after checking that every bank line is reconciled.", `{"type":"object","required":["period"],"properties":{"period":{"type":"string"}}}`,
				[]string{"close the books for March", "lock last month in accounting"}},
			{"reconcile_bank_account", "match bank transactions to invoices and bills", "Auto-matches open bank lines and lists the ones left.", `{"type":"object","required":["account"],"properties":{"account":{"type":"string"}}}`,
				[]string{"reconcile the main checking account", "match this week's bank lines"}},
		}},
	{key: "shop", sys: "the online shop", ext: "Shopify", ents: []string{"Jane Doe", "order 5521", "the spring collection", "a returning customer"},
		objects: []synObject{
			synObj("order", "order", "purchase", "order_id", "O-", "pending paid shipped cancelled", "address,notes", "get update cancel comment tag search report"),
			synObj("abandoned_cart", "abandoned cart", "cart", "cart_id", "CART-", "", "", "list remind export"),
			synObj("product_review", "product review", "review", "review_id", "REV-", "pending published hidden", "", "list approve reject comment"),
			synObj("gift_card", "gift card", "voucher", "card_id", "GC-", "active used expired", "balance", "list create cancel send"),
			synObj("collection", "collection", "category", "collection_id", "COL-", "", "title,sort order", "list create update delete"),
		},
		custom: []synCustom{
			{"refund_order", "refund an order in full or in part", "Refunds the payment and, optionally, restocks the items.", `{"type":"object","required":["order_id"],"properties":{"order_id":{"type":"string"},"amount":{"type":"number"},"restock":{"type":"boolean"}}}`,
				[]string{"refund order O-5521", "give Jane Doe her money back for the broken mug"}},
			{"fulfil_order", "mark an order's items as shipped and notify the customer", "Creates the fulfilment with the tracking number.", `{"type":"object","required":["order_id"],"properties":{"order_id":{"type":"string"},"tracking":{"type":"string"}}}`,
				[]string{"fulfil order O-7712 with tracking 1Z99", "mark Jane's order as sent"}},
		}},
	{key: "wiki", sys: "the wiki", ext: "Confluence", ents: []string{"the onboarding guide", "the on-call runbook", "the Q3 roadmap", "team rituals"},
		objects: []synObject{
			synObj("wiki_page", "wiki page", "page", "page_id", "P-", "draft published", "title,body,parent", "list get create update delete archive restore search comment"),
			synObj("document", "document", "doc", "doc_id", "DOC-", "draft shared", "title,owner", "list create copy delete search send"),
			synObj("doc_template", "document template", "template", "template_id", "TPL-", "", "title,body", "list create update"),
			synObj("meeting_notes", "meeting notes|meeting notes", "minutes", "notes_id", "MN-", "", "attendees,decisions", "create send search"),
		},
		custom: []synCustom{
			{"summarize_document", "summarise a long document in a few bullet points", "Reads the document and returns a short summary with its decisions.", `{"type":"object","required":["doc_id"],"properties":{"doc_id":{"type":"string"}}}`,
				[]string{"summarise the Q3 roadmap doc", "tl;dr of the on-call runbook please"}},
		}},
	{key: "chat", sys: "Slack", ext: "Slack", ents: []string{"#general", "#incidents", "the design team", "Priya"},
		objects: []synObject{
			synObj("channel", "channel", "room", "channel_id", "CH-", "active archived", "topic,purpose", "list create archive restore"),
			synObj("chat_message", "message", "post", "message_id", "MSG-", "", "text", "send delete search schedule"),
			synObj("user_group", "user group", "team handle", "group_id", "UG-", "", "members", "list create update"),
			synObj("announcement", "announcement", "company update", "announcement_id", "ANN-", "draft posted", "text", "create schedule send"),
		},
		custom: []synCustom{
			{"post_standup_summary", "post the team's daily stand-up summary to a channel", "Collects yesterday's updates and posts them to the channel.", `{"type":"object","required":["channel"],"properties":{"channel":{"type":"string"}}}`,
				[]string{"post today's standup summary in #team-web", "share the stand-up notes with the design team"}},
			{"set_status", "set my chat status and emoji", "Updates the signed-in user's status text and expiry.", `{"type":"object","required":["text"],"properties":{"text":{"type":"string"},"until":{"type":"string"}}}`,
				[]string{"set my status to 'in a workshop' until 3pm", "mark me as on vacation in Slack"}},
		}},
	{key: "projects", sys: "the project tracker", ext: "Jira", ents: []string{"the checkout revamp", "the mobile app", "sprint 42", "the platform team"},
		objects: []synObject{
			synObj("task", "task", "to-do", "task_id", "TASK-", "todo in_progress done", "due date,estimate,assignee", "list get create update close reopen assign comment tag"),
			synObj("sprint", "sprint", "iteration", "sprint_id", "SPR-", "planned active closed", "goal,dates", "list create close report"),
			synObj("epic", "epic", "initiative", "epic_id", "EPIC-", "open done", "title,owner", "list create update close"),
			synObj("project", "project", "workstream", "project_key", "", "active archived", "lead,description", "list get create archive restore"),
			synObj("timesheet", "timesheet", "hours", "timesheet_id", "TS-", "draft submitted approved", "hours", "list create approve reject remind export"),
			synObj("bug", "bug", "defect", "bug_id", "BUG-", "open fixed verified", "severity,component", "list create update close reopen assign"),
		},
		custom: []synCustom{
			{"plan_sprint", "fill the next sprint from the top of the backlog", "Moves the highest-ranked backlog items into the sprint up to the team's capacity.", `{"type":"object","required":["sprint_id"],"properties":{"sprint_id":{"type":"string"},"capacity":{"type":"integer"}}}`,
				[]string{"plan sprint 43 from the backlog", "fill next sprint with the top tickets up to 40 points"}},
			{"log_work", "log hours against a task", "Adds a worklog entry to the task.", `{"type":"object","required":["task_id","hours"],"properties":{"task_id":{"type":"string"},"hours":{"type":"number"}}}`,
				[]string{"log 3 hours on TASK-221", "I spent the afternoon on the checkout revamp, record it"}},
		}},
	{key: "storage", sys: "the file storage", ext: "Google Drive", ents: []string{"the Q3 deck", "the contracts folder", "the design assets", "the board pack"},
		objects: []synObject{
			synObj("file", "file", "document", "file_id", "FILE-", "", "name,owner", "list get delete restore copy search send"),
			synObj("folder", "folder", "directory", "folder_id", "DIR-", "", "name,parent", "list create delete archive"),
			synObj("shared_link", "shared link", "share link", "link_id", "LINK-", "active expired", "expiry,access", "list create delete"),
		},
		custom: []synCustom{
			{"share_file", "share a file or folder with people", "Grants view or edit access and emails the people.", `{"type":"object","required":["file_id","with"],"properties":{"file_id":{"type":"string"},"with":{"type":"array","items":{"type":"string"}},"role":{"type":"string","enum":["viewer","editor"]}}}`,
				[]string{"share the Q3 deck with Priya, view only", "give the design team edit access to the assets folder"}},
			{"free_up_storage", "find the largest files to free up storage space", "Lists the biggest and oldest files of the drive.", `{"type":"object","properties":{"min_mb":{"type":"integer"}}}`,
				[]string{"what's eating all our storage?", "find files over 500MB we could delete"}},
		}},
	{key: "email", sys: "the mailbox", ext: "Gmail", ents: []string{"Jane Doe", "the Acme thread", "my inbox", "the board"},
		objects: []synObject{
			synObj("email_draft", "email draft", "draft", "draft_id", "DR-", "", "subject,body,recipients", "list create update delete send schedule"),
			synObj("mail_filter", "mail filter", "inbox rule", "filter_id", "FLT-", "", "criteria,action", "list create update delete"),
			synObj("contact_group", "contact group", "mailing list", "group_id", "GRP-", "", "members", "list create update delete"),
		},
		custom: []synCustom{
			{"summarize_inbox", "summarise the unread email in my inbox", "Groups unread mail by sender and topic and lists what needs an answer.", `{"type":"object","properties":{"since":{"type":"string"}}}`,
				[]string{"what did I miss in my inbox today?", "summarise my unread emails"}},
			{"unsubscribe_sender", "unsubscribe from a newsletter sender", "Follows the sender's unsubscribe link and filters their mail.", `{"type":"object","required":["sender"],"properties":{"sender":{"type":"string"}}}`,
				[]string{"unsubscribe me from the Globex newsletter", "stop these marketing emails from deals@shop.example"}},
		}},
	{key: "legal", sys: "the contract repository", ext: "DocuSign", ents: []string{"Acme Corp", "our new supplier", "the Berlin landlord", "Globex"},
		objects: []synObject{
			synObj("contract", "contract", "agreement", "contract_id", "K-", "draft in_review signed expired", "counterparty,term,value,renewal date", "list get create update approve reject send archive search export remind comment tag"),
			synObj("nda", "NDA", "confidentiality agreement", "nda_id", "NDA-", "sent signed expired", "counterparty,term", "list create send cancel search archive"),
			synObj("legal_request", "legal request", "legal question", "request_id", "LR-", "new in_progress answered", "priority,topic", "list get create assign close comment report"),
			synObj("compliance_check", "compliance check", "audit item", "check_id", "CC-", "passed failed waived", "owner,due date", "list create assign close report export"),
		}},
	{key: "facilities", sys: "the facilities portal", ext: "the building system", ents: []string{"the 3rd floor", "the Berlin office", "meeting room Nile", "the kitchen"},
		objects: []synObject{
			synObj("maintenance_request", "maintenance request", "repair job", "request_id", "MR-", "open scheduled done", "location,priority", "list get create update assign close reopen comment schedule report"),
			synObj("desk_booking", "desk booking", "hot desk", "booking_id", "DK-", "booked cancelled", "desk,date", "list create cancel update"),
			synObj("visitor", "visitor", "guest", "visitor_id", "V-", "expected checked_in left", "host,arrival time", "list create cancel send search"),
			synObj("parking_permit", "parking permit", "parking spot", "permit_id", "PK-", "active expired", "plate,zone", "list create cancel approve reject"),
			synObj("asset", "asset", "equipment", "asset_tag", "AT-", "in_use in_storage retired", "owner,location", "list get create update assign archive search export import tag"),
		}},
	{key: "lms", sys: "the learning platform", ext: "the HR system", ents: []string{"new managers", "the sales team", "Priya", "all engineers"},
		objects: []synObject{
			synObj("course", "course", "training", "course_id", "CRS-", "draft published retired", "title,duration,owner", "list get create update archive copy search report"),
			synObj("enrollment", "enrollment", "sign-up", "enrollment_id", "ENR-", "enrolled completed overdue", "due date", "list create cancel remind export report"),
			synObj("quiz", "quiz|quizzes", "test", "quiz_id", "QZ-", "draft live", "questions,pass mark", "list create update copy delete"),
			synObj("certificate", "certificate", "certification", "certificate_id", "CERT-", "valid expired", "expiry", "list get send search"),
		}},
	{key: "clinic", sys: "the practice management system", ext: "the booking site", ents: []string{"Mrs Alvarez", "Dr. Chen", "patient 2231", "the Tuesday clinic"},
		objects: []synObject{
			synObj("appointment", "appointment", "visit", "appointment_id", "APT-", "booked checked_in completed no_show cancelled", "time,doctor,reason", "list get schedule cancel update remind comment report"),
			synObj("patient_record", "patient record", "chart", "patient_id", "PT-", "active inactive", "allergies,address,insurance", "get create update search merge export"),
			synObj("prescription", "prescription", "script", "prescription_id", "RX-", "active expired", "dose,refills", "list create approve cancel send"),
			synObj("lab_result", "lab result", "test result", "result_id", "LAB-", "pending final", "", "list get send comment"),
		}},
	{key: "property", sys: "the property management app", ext: "the listing portal", ents: []string{"12 Elm Street", "unit 4B", "the Hendersons", "the riverside building"},
		objects: []synObject{
			synObj("listing", "listing", "property ad", "listing_id", "LST-", "draft live let", "rent,photos,description", "list get create update archive copy sync"),
			synObj("lease", "lease", "tenancy agreement", "lease_id", "LEASE-", "active ending ended", "rent,end date", "list get create update send cancel remind"),
			synObj("tenant", "tenant", "renter", "tenant_id", "TEN-", "current former", "phone,email", "list get create update search comment"),
			synObj("rent_payment", "rent payment", "rent", "payment_id", "RENT-", "due paid late", "amount", "list remind report export"),
			synObj("viewing", "viewing", "showing", "viewing_id", "VW-", "booked done cancelled", "time", "list schedule cancel"),
		}},
	{key: "events", sys: "the events platform", ext: "Eventbrite", ents: []string{"the product launch", "the summer party", "DevDay 2025", "the partner summit"},
		objects: []synObject{
			synObj("event", "event", "conference", "event_id", "E-", "draft published finished", "date,venue,capacity", "list get create update cancel copy report"),
			synObj("registration", "registration", "ticket booking", "registration_id", "REG-", "confirmed waitlisted cancelled", "ticket type", "list get cancel export send search"),
			synObj("speaker", "speaker", "presenter", "speaker_id", "SPK-", "invited confirmed", "bio,talk title", "list create update remind"),
			synObj("venue", "venue", "location", "venue_id", "VEN-", "", "address,capacity", "list create update"),
		}},
	{key: "fleet", sys: "the fleet tracker", ext: "the telematics feed", ents: []string{"van 12", "truck TR-8", "the night drivers", "the north depot"},
		objects: []synObject{
			synObj("vehicle", "vehicle", "van", "vehicle_id", "VH-", "available in_service maintenance", "plate,mileage,driver", "list get create update archive assign search export"),
			synObj("driver", "driver", "courier", "driver_id", "DRV-", "on_shift off_shift", "licence,phone", "list get create update assign"),
			synObj("fuel_log", "fuel log", "fuel receipt", "log_id", "FL-", "", "litres,cost", "list create export report"),
			synObj("inspection", "vehicle inspection", "safety check", "inspection_id", "INSP-", "due passed failed", "", "list schedule create close"),
		}},
	{key: "social", sys: "the social media tool", ext: "LinkedIn", ents: []string{"the product launch", "our company page", "the summer sale", "the CEO's account"},
		objects: []synObject{
			synObj("social_post", "social post", "post", "post_id", "SP-", "draft scheduled published", "text,image", "list create update delete schedule approve copy report"),
			synObj("mention", "mention", "brand mention", "mention_id", "MEN-", "new replied ignored", "", "list search assign comment export"),
			synObj("social_account", "social account", "profile", "account_id", "SA-", "connected disconnected", "", "list sync"),
		}},
	{key: "success", sys: "the customer success platform", ext: "Gainsight", ents: []string{"Acme Corp", "Globex", "our top 20 accounts", "Initech"},
		objects: []synObject{
			synObj("renewal", "renewal", "contract renewal", "renewal_id", "RN-", "upcoming at_risk renewed churned", "amount,date,owner", "list get update assign remind report export"),
			synObj("health_score", "health score", "account health", "account_id", "ACC-", "green yellow red", "", "list report sync export"),
			synObj("business_review", "business review", "QBR", "review_id", "QBR-", "planned held", "date,attendees", "list schedule create send"),
			synObj("success_plan", "success plan", "playbook", "plan_id", "SP-", "active done", "goals,owner", "list create update close copy"),
		}},
	{key: "travel", sys: "the travel booking tool", ext: "the travel agency", ents: []string{"the Berlin offsite", "Priya's trip to Tokyo", "the sales kickoff", "Marcus"},
		objects: []synObject{
			synObj("trip", "trip", "business trip", "trip_id", "TRP-", "planned booked completed", "dates,destination,budget", "list get create update approve reject cancel report"),
			synObj("flight_booking", "flight booking", "flight", "booking_ref", "FLT-", "held ticketed cancelled", "date,seat,fare class", "list get create cancel update send"),
			synObj("hotel_booking", "hotel booking", "hotel room", "booking_ref", "HTL-", "held confirmed cancelled", "dates,room type", "list get create cancel update"),
			synObj("travel_expense", "travel expense", "per diem", "expense_id", "TE-", "submitted approved paid", "amount,category", "list create approve reject export"),
		}},
	{key: "restaurant", sys: "the restaurant back office", ext: "OpenTable", ents: []string{"table 12", "the Saturday brunch", "a party of eight", "the terrace"},
		objects: []synObject{
			synObj("reservation", "reservation", "table booking", "reservation_id", "RES-", "booked seated no_show cancelled", "time,party size,notes", "list get create update cancel remind search"),
			synObj("menu_item", "menu item", "dish", "item_id", "MENU-", "available sold_out", "price,description,allergens", "list create update archive restore tag"),
			synObj("kitchen_order", "kitchen order", "ticket", "ticket_no", "KO-", "queued cooking served", "", "list cancel update"),
			synObj("staff_shift", "staff shift", "rota slot", "shift_id", "SHF-", "open filled", "role,time", "list create assign cancel copy"),
		}},
	{key: "itops", sys: "the IT service portal", ext: "the device manager", ents: []string{"Ken's laptop", "the new hires", "the London office", "Amara Okafor"},
		objects: []synObject{
			synObj("laptop_request", "laptop request", "hardware request", "request_id", "HW-", "requested approved shipped", "model,ship to", "list get create approve reject cancel"),
			synObj("software_license", "software license", "seat", "license_id", "LIC-", "assigned unassigned expiring", "product,seats", "list assign cancel report export remind"),
			synObj("vpn_access", "VPN access|VPN access", "remote access", "grant_id", "VPN-", "active revoked", "", "list create cancel approve"),
			synObj("device", "managed device", "device", "device_id", "DEV-", "compliant non_compliant lost", "owner,os version", "list get update archive search sync"),
			synObj("it_ticket", "IT ticket", "helpdesk request", "ticket_id", "IT-", "open waiting resolved", "category,priority", "list get create assign close reopen comment"),
		}},
	{key: "payroll", sys: "the payroll system", ext: "the bank", ents: []string{"the March run", "the Berlin team", "contractors", "Sofia Rossi"},
		objects: []synObject{
			synObj("payroll_run", "payroll run", "pay run", "run_id", "PAY-", "draft approved paid", "pay date", "list get create approve cancel report export"),
			synObj("bonus", "bonus|bonuses", "one-off payment", "bonus_id", "BON-", "proposed approved paid", "amount,reason", "list create approve reject"),
			synObj("tax_form", "tax form", "W-2", "form_id", "TAX-", "generated filed", "", "list get send export"),
			synObj("salary_change", "salary change", "raise", "change_id", "SAL-", "proposed approved effective", "amount,effective date", "list create approve reject"),
		}},
	{key: "school", sys: "the school portal", ext: "the district SIS", ents: []string{"class 7B", "Mia Johnson", "the science department", "parents of year 9"},
		objects: []synObject{
			synObj("student", "student", "pupil", "student_id", "STU-", "enrolled withdrawn", "guardian,class", "list get create update archive search export import"),
			synObj("assignment", "assignment", "homework", "assignment_id", "ASG-", "draft assigned graded", "due date,points", "list create update delete copy remind"),
			synObj("grade", "grade", "mark", "grade_id", "GR-", "draft published", "score,comment", "list update export report"),
			synObj("parent_message", "parent message", "note home", "message_id", "PM-", "draft sent", "subject,body", "list create send schedule"),
		}},
	{key: "loyalty", sys: "the loyalty program", ext: "the point-of-sale", ents: []string{"Jane Doe", "gold members", "the summer promotion", "a returning customer"},
		objects: []synObject{
			synObj("loyalty_member", "loyalty member", "rewards member", "member_id", "LM-", "bronze silver gold", "tier,points", "list get create update merge search export"),
			synObj("reward", "reward", "perk", "reward_id", "RWD-", "active retired", "cost,stock", "list create update archive"),
			synObj("points_adjustment", "points adjustment", "points correction", "adjustment_id", "PTS-", "pending applied", "points,reason", "list create approve reject"),
		}},
	{key: "procurement", sys: "the procurement portal", ext: "the ERP", ents: []string{"new laptops", "office chairs", "Acme Supplies", "the cloud contract"},
		objects: []synObject{
			synObj("purchase_request", "purchase request", "requisition", "request_id", "REQ-", "draft submitted approved ordered", "amount,cost center,justification", "list get create update approve reject cancel comment remind"),
			synObj("vendor_quote", "vendor quote", "quotation", "quote_id", "QT-", "requested received accepted declined", "price,valid until", "list get create approve reject"),
			synObj("rfp", "RFP", "tender", "rfp_id", "RFP-", "draft open awarded", "deadline,scope", "list create update close send copy"),
		}},
	{key: "quality", sys: "the quality management system", ext: "the factory MES", ents: []string{"line 3", "batch 2231", "the supplier audit", "the Lyon plant"},
		objects: []synObject{
			synObj("nonconformance", "nonconformance report", "defect report", "ncr_id", "NCR-", "open investigating closed", "severity,root cause", "list get create update assign close reopen comment report export"),
			synObj("quality_audit", "quality audit", "inspection audit", "audit_id", "QA-", "planned done", "scope,auditor", "list schedule create close report"),
			synObj("corrective_action", "corrective action", "CAPA", "capa_id", "CAPA-", "open verified", "owner,due date", "list create assign close remind"),
		}},
	{key: "fundraising", sys: "the donor database", ext: "the payment processor", ents: []string{"the spring appeal", "Mrs Alvarez", "major donors", "the gala"},
		objects: []synObject{
			synObj("donor", "donor", "supporter", "donor_id", "DON-", "active lapsed", "email,giving level", "list get create update merge search tag export import"),
			synObj("donation", "donation", "gift", "donation_id", "GIFT-", "pledged received refunded", "amount,fund", "list get create update export report send"),
			synObj("grant_application", "grant application", "grant proposal", "application_id", "GA-", "drafting submitted awarded declined", "funder,amount,deadline", "list create update remind close"),
		}},
	{key: "cms", sys: "the CMS", ext: "the DAM", ents: []string{"the launch announcement", "the pricing page", "episode 42", "the homepage banner"},
		objects: []synObject{
			synObj("blog_post", "blog post", "article", "post_id", "BP-", "draft scheduled published", "title,author,slug", "list get create update delete schedule approve archive copy tag comment"),
			synObj("video", "video", "clip", "video_id", "VID-", "processing ready published", "title,thumbnail", "list get create update delete tag archive"),
			synObj("podcast_episode", "podcast episode", "episode", "episode_id", "EP-", "draft published", "title,show notes", "list create update schedule delete"),
			synObj("media_asset", "media asset", "image", "asset_id", "IMG-", "", "alt text,license", "list search delete tag import sync"),
		}},
}

// synRand is splitmix64: tiny, and the same sequence on every platform and Go
// version, which keeps the synthetic registries byte-for-byte stable.
type synRand uint64

func (r *synRand) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (r *synRand) intn(n int) int { return int(r.next() % uint64(n)) }

func (r *synRand) pick(vs []string) string { return vs[r.intn(len(vs))] }

// synMacros builds every synthetic macro, in a fixed shuffled order, leaving
// out names the core already has (a real registry would not hold two
// list_orders).
func synMacros() []*runtime.Macro {
	taken := map[string]bool{}
	for _, m := range Core() {
		taken[m.Name] = true
	}
	var out []*runtime.Macro
	r := synRand(42)
	add := func(m *runtime.Macro) {
		if taken[m.Name] {
			return
		}
		taken[m.Name] = true
		out = append(out, m)
	}
	for _, d := range synDomains {
		for _, o := range d.objects {
			for _, v := range strings.Fields(o.verbs) {
				sv, ok := synVerbs[v]
				if !ok {
					panic("synthetic object " + o.key + ": unknown verb " + v)
				}
				add(synMacro(d, o, v, sv, &r))
			}
		}
		for _, c := range d.custom {
			m := &runtime.Macro{Name: c.name, Intent: c.intent, Description: c.desc, Risk: runtime.RiskAct, Params: json.RawMessage(c.params), Handler: Noop}
			for _, s := range c.says {
				m.Examples = append(m.Examples, runtime.Example{Say: s, Args: json.RawMessage(`{}`)})
			}
			add(m)
		}
	}
	for i := len(out) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func synMacro(d synDomain, o synObject, vkey string, v synVerb, r *synRand) *runtime.Macro {
	// The plural name part: the display plural when the key spells the
	// display name (saved_reply -> saved_replies), else the key plus -s.
	snake := strings.NewReplacer(" ", "_", "-", "_")
	keys := o.key + "s"
	if snake.Replace(strings.ToLower(o.one)) == o.key {
		keys = snake.Replace(strings.ToLower(o.many))
	}
	name := strings.NewReplacer("{keys}", keys, "{key}", o.key).Replace(v.name)
	risk := runtime.RiskAct
	switch vkey {
	case "list", "get", "search", "export", "report":
		risk = runtime.RiskRead
	case "delete", "merge":
		risk = runtime.RiskDangerous
	}
	fixed := strings.NewReplacer("{one}", o.one, "{many}", o.many, "{sys}", d.sys, "{ext}", d.ext)
	m := &runtime.Macro{Name: name, Intent: fixed.Replace(v.intent), Description: fixed.Replace(v.desc), Risk: risk,
		Params: json.RawMessage(v.params(o, d)), Handler: Noop}
	if d.key == "github" && vkey != "list" {
		m.Params = json.RawMessage(strings.Replace(string(m.Params), `"properties":{`,
			`"properties":{"owner":{"type":"string","description":"repository owner"},"repo":{"type":"string","description":"repository name"},`, 1))
	}
	// 2 to 4 examples, from distinct templates.
	n := 2 + r.intn(3)
	if n > len(v.says) {
		n = len(v.says)
	}
	order := make([]int, len(v.says))
	for i := range order {
		order[i] = i
	}
	for i := len(order) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		order[i], order[j] = order[j], order[i]
	}
	for _, ti := range order[:n] {
		say := fillSay(v.says[ti], d, o, r)
		m.Examples = append(m.Examples, runtime.Example{Say: say, Args: json.RawMessage(`{}`)})
	}
	return m
}

func fillSay(tmpl string, d synDomain, o synObject, r *synRand) string {
	objWord, objsWord := o.one, o.many
	if o.alt != "" && r.intn(3) == 0 {
		objWord, objsWord = o.alt, o.alt+"s"
		if strings.HasSuffix(o.alt, "s") {
			objsWord = o.alt
		}
	}
	id := func() string { return fmt.Sprintf("%s%d", o.idPrefix, 100+r.intn(9900)) }
	state := "open"
	if len(o.states) > 0 {
		state = strings.ReplaceAll(r.pick(o.states), "_", " ")
	}
	field := "name"
	if f := o.fields[r.intn(len(o.fields))]; f != "" {
		field = f
	}
	return strings.NewReplacer(
		"{one}", o.one, "{many}", o.many, "{obj}", objWord, "{objs}", objsWord,
		"{id}", id(), "{id2}", id(), "{ent}", r.pick(d.ents), "{state}", state,
		"{field}", field, "{val}", r.pick(synVals), "{sys}", d.sys, "{ext}", d.ext,
		"{who}", r.pick(synPeople), "{when}", r.pick(synWhen), "{kw}", r.pick(synKW),
		"{period}", r.pick(synPeriods), "{tag}", r.pick(synTags), "{msg}", r.pick(synMsgs),
		"{reason}", r.pick(synReasons), "{file}", r.pick(synFiles), "{email}", r.pick(synEmails),
	).Replace(tmpl)
}

// Registry is a registry of n macros: the first min(n, 12) of the core,
// the rest synthetic distractors.
func Registry(tb testing.TB, n int) *runtime.Registry {
	tb.Helper()
	core := Core()
	if n < len(core) {
		core = core[:n]
	}
	syn := synMacros()
	if need := n - len(core); need > len(syn) {
		tb.Fatalf("only %d synthetic macros, need %d", len(syn), need)
	} else {
		core = append(core, syn[:need]...)
	}
	r, err := runtime.NewRegistry(core...)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}
