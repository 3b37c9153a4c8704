package route

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Plan language: a model that answers a request with the steps it would
// take ("First I will open the customers page, then click New") did
// nothing, however confident it sounds. planPhrase finds such a plan:
//
//   - a first-person statement of intent with an action verb: "I will
//     open", "I'll click", "I am going to create", "let me check", "we'll
//     add" (and in German, French, Spanish and Chinese: "ich werde ...
//     öffnen", "je vais ouvrir", "voy a abrir", "我会打开");
//   - a step sequence: "First, open ...", "Step 1: click ...", an
//     imperative with "then <verb>", or a list of two or more items that
//     start with an action verb.
//
// It is careful with honest answers: past or present statements ("Customer
// Ada was created", "I opened the page"), offers and clarifications ("I
// can open it if you tell me which one", "I will need the name"), and any
// answer that ends in a question to the user are not plans.
//
// Every pattern is an RE2 regexp over one sentence (or list line) of at
// most maxPlanSentence bytes that holds one of planTriggers: plans are
// said in short sentences, and the check stays linear with a small
// constant on any text.

// planVerbs are English action verbs, as a plan names them.
const planVerbs = `(?:open|click|press|tap|go|navigate|visit|browse|fill|type|enter|input|select|choose|pick|submit|save|search|look|find|fetch|load|create|add|delete|remove|update|edit|change|set|log|sign|run|call|use|invoke|execute|trigger|check|verify|scroll|download|upload|send|copy|paste|retrieve|query|list|close|launch|head|switch|filter|sort|export|import|assign|label|merge|approve|reject|book|pay|transfer|publish|confirm|proceed)`

var (
	// planIntentRE: "I will open", "I'll now click", "we are going to add",
	// "let me check", "let's create".
	planIntentRE = regexp.MustCompile(`(?i)\b(?:(?:i|we)(?:\s+will|'ll|’ll|\s+shall|\s+am\s+going\s+to|'m\s+going\s+to|’m\s+going\s+to|\s+are\s+going\s+to|'re\s+going\s+to|’re\s+going\s+to|\s+plan\s+to|\s+intend\s+to)|let(?:'s|’s|\s+me|\s+us))\s+(?:now\s+|first\s+|then\s+|next\s+|also\s+|just\s+|quickly\s+|go\s+ahead\s+and\s+|proceed\s+to\s+|need\s+to\s+|try\s+to\s+|start\s+by\s+\w+ing\s+)?` + planVerbs + `\b`)
	// planFirstRE: "First, open ...", "First I will click", "Step 1: go to".
	planFirstRE = regexp.MustCompile(`(?i)(?:^|[\s,;:])(?:first(?:ly)?|to\s+start|to\s+begin|step\s*1)\s*[,:.)-]?\s*(?:(?:i|we)(?:\s+will|'ll|’ll|\s+am\s+going\s+to|'m\s+going\s+to)\s+)?` + planVerbs + `\b`)
	// planThenRE: an imperative followed by "then <verb>": "Open the
	// customers page, then click New customer".
	planThenRE = regexp.MustCompile(`(?i)^\W{0,4}` + planVerbs + `\b.*\b(?:then|after\s+that|next|afterwards)\s*,?\s*(?:(?:i|we)(?:\s+will|'ll|’ll)\s+)?` + planVerbs + `\b`)
	// planStepRE: one list item that is a step: "1. Open the page",
	// "- click Save", "Step 2: submit".
	planStepRE = regexp.MustCompile(`(?i)^\s{0,8}(?:\d{1,2}[.)]|[-*•]|step\s*\d{1,2}\s*[:.)-]?)\s{0,4}(?:(?:i|we)(?:\s+will|'ll|’ll)\s+)?(?:then\s+|next\s+|finally\s+)?` + planVerbs + `\b(.*)$`)
	// planDataRE: what follows a list item's first word when the item is
	// data ("Open orders: 3"), not a step.
	planDataRE = regexp.MustCompile(`^\s*[\w ]{0,30}:\s*\S`)

	// Other languages: intent with an action verb.
	planOtherRE = regexp.MustCompile(`(?i)` +
		// German: ich werde / wir werden ... öffnen; zuerst öffne ich.
		`(?:\b(?:ich|wir)\s+(?:werde|werden)\s(?:[^.!?\n]{0,60}\s)?(?:öffnen|klicken|anklicken|gehen|navigieren|aufrufen|ausfüllen|eingeben|auswählen|suchen|erstellen|anlegen|hinzufügen|löschen|entfernen|speichern|absenden|senden|prüfen|ändern)(?:[^\p{L}]|$))` +
		`|(?:\b(?:zuerst|als\s+erstes|zunächst)\s+(?:werde\s+ich|öffne\s+ich|klicke\s+ich|gehe\s+ich|rufe\s+ich))` +
		// French: je vais ouvrir, nous allons créer, d'abord je vais.
		`|(?:\b(?:je\s+vais|nous\s+allons)\s+(?:d'abord\s+|ensuite\s+|maintenant\s+|donc\s+)?(?:ouvrir|cliquer|aller|naviguer|remplir|saisir|entrer|sélectionner|choisir|chercher|rechercher|créer|ajouter|supprimer|enregistrer|envoyer|vérifier|modifier))` +
		`|(?:\bje\s+(?:cliquerai|créerai|ajouterai|supprimerai|remplirai|chercherai|sélectionnerai|enregistrerai|ouvrirai)|\bj'(?:ouvrirai|irai|ajouterai|enregistrerai))` +
		// Spanish: voy a abrir, vamos a crear, primero abriré.
		`|(?:\b(?:voy|vamos)\s+a\s+(?:abrir|hacer\s+clic|pulsar|ir|navegar|rellenar|llenar|escribir|introducir|seleccionar|elegir|buscar|crear|añadir|agregar|eliminar|borrar|guardar|enviar|revisar|comprobar))` +
		`|(?:\b(?:abriré|haré\s+clic|iré|buscaré|crearé|añadiré|agregaré|eliminaré|guardaré|enviaré|seleccionaré|rellenaré))` +
		// Chinese: 我会打开, 首先点击, 然后我将提交.
		`|(?:(?:我(?:会|将|要|先|打算|准备)|首先|接下来|然后)[^。！？\n]{0,12}?(?:打开|点击|单击|进入|访问|填写|输入|选择|搜索|查找|创建|添加|删除|保存|提交|发送))`)

	// planConditionRE marks a sentence that waits on the user ("once you
	// tell me the name, I'll add it"): a clarification, not a plan.
	planConditionRE = regexp.MustCompile(`(?i)\b(?:if|once|when|as\s+soon\s+as|after|unless)\s+(?:you|u)\b|\b(?:si\s+vous|si\s+tu|wenn\s+(?:sie|du)|si\s+usted|cuando\s+(?:me\s+)?(?:digas|diga))\b|如果你|如果您|等你`)
)

// maxPlanSentence bounds the sentences and list lines searched for plan
// language: a longer run without a sentence end is not prose.
const maxPlanSentence = 400

// planTriggers are the words one of the plan patterns needs (lower case;
// "then", "next" and "after" cover an imperative with "then <verb>"): a
// sentence with none of them is not searched.
var planTriggers = []string{"i ", "i'", "i’", "we", "let", "first", "step", "begin", "start", "then", "next", "after",
	"ich", "wir", "zuerst", "zunächst", "erstes", "je ", "j'", "nous", "voy", "vamos", "ré", "我", "首先", "接下来", "然后"}

// planPhrase returns the words that make text a plan, or "".
func planPhrase(text string) string {
	t := strings.TrimSpace(text)
	if t == "" || endsWithQuestion(t) {
		return ""
	}
	steps := 0
	for _, line := range strings.Split(t, "\n") {
		if len(line) > maxPlanSentence || !startsLikeStep(line) {
			continue
		}
		if m := planStepRE.FindStringSubmatch(line); m != nil && !planDataRE.MatchString(m[1]) {
			if steps++; steps == 2 {
				return strings.TrimSpace(line)
			}
		}
	}
	for _, s := range sentences(t) {
		if s.question || len(s.text) > maxPlanSentence || !hasTrigger(s.text) || planConditionRE.MatchString(s.text) {
			continue
		}
		for _, re := range []*regexp.Regexp{planIntentRE, planFirstRE, planThenRE, planOtherRE} {
			if m := re.FindString(s.text); m != "" {
				return strings.TrimSpace(strings.TrimLeft(m, ",;: "))
			}
		}
	}
	return ""
}

// startsLikeStep: does the line start as a list item (a number, a bullet,
// "step")?
func startsLikeStep(line string) bool {
	l := strings.TrimLeft(line, " \t")
	if l == "" {
		return false
	}
	switch c := l[0]; {
	case c >= '0' && c <= '9', c == '-', c == '*':
		return true
	}
	return strings.HasPrefix(l, "•") || len(l) >= 4 && strings.EqualFold(l[:4], "step")
}

func hasTrigger(s string) bool {
	l := strings.ToLower(s)
	for _, w := range planTriggers {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

func endsWithQuestion(t string) bool {
	r, _ := utf8.DecodeLastRuneInString(t)
	return r == '?' || r == '？'
}

type sentence struct {
	text     string
	question bool
}

// sentences splits text at sentence ends (. ! ? and their CJK forms, and
// line breaks), noting which ones are questions.
func sentences(t string) []sentence {
	var out []sentence
	start := 0
	for i, r := range t {
		switch r {
		case '.', '!', '?', '\n', '。', '！', '？':
			if s := strings.TrimSpace(t[start:i]); s != "" {
				out = append(out, sentence{text: s, question: r == '?' || r == '？'})
			}
			start = i + utf8.RuneLen(r)
		}
	}
	if s := strings.TrimSpace(t[start:]); s != "" {
		out = append(out, sentence{text: s})
	}
	return out
}
