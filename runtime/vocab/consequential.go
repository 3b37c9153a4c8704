package vocab

import (
	"strings"
	"unicode"
)

// The consequential action words: what a control's name says when using it
// commits something that is hard to take back (money moves, data goes,
// a message leaves, a subscription ends). Declared once, here; spec's
// generate-time check and explore's run-time gate both read it.
//
// The rule: a word counts when it names an irreversible or outward effect
// (submit, pay, buy, delete, send, confirm, transfer, publish, ...). The
// ordinary business of an act macro — Save, Add, Create, Edit, Update,
// New, Open, Close, Cancel (a dialog), Search, Filter — does not count:
// every act macro does those, and flagging them would teach authors to
// acknowledge everything. Bare words that are too often something else
// are only listed inside a phrase ("order" alone is also a sort order:
// "place order" counts; German "zahlen" is also "numbers": "bezahlen"
// counts). Matching is case-folded and by whole words (or whole word
// sequences), so "Deleted items" or "Submittal" do not match; Chinese has
// no word boundaries and matches by substring. A destructive word in a
// harmless place ("Delete filter", "Remove tag") is flagged on purpose:
// the author acknowledges it once with a reason, which is cheaper than a
// missed "Delete account".
var consequentialWords = []string{
	// English
	"submit", "pay", "pay now", "purchase", "buy", "buy now", "place order", "order now", "submit order",
	"checkout", "check out", "delete", "remove", "erase", "destroy", "purge", "wipe", "discard",
	"send", "confirm", "transfer", "publish", "post", "cancel subscription",
	"unsubscribe", "deactivate", "terminate", "revoke", "withdraw", "refund", "donate", "close account",
	"empty trash",
	// German
	"absenden", "senden", "abschicken", "bezahlen", "jetzt zahlen", "kaufen", "jetzt kaufen", "bestellen",
	"löschen", "entfernen", "vernichten", "bestätigen", "überweisen", "veröffentlichen", "zur kasse",
	"kündigen", "abbestellen", "deaktivieren", "abmelden vom newsletter",
	// French
	"soumettre", "envoyer", "payer", "acheter", "commander", "passer la commande", "passer commande",
	"supprimer", "effacer", "détruire", "confirmer", "valider", "transférer", "virement", "publier",
	"désabonner", "se désabonner", "désactiver", "résilier",
	// Spanish
	"enviar", "pagar", "comprar", "realizar pedido", "hacer pedido", "eliminar", "borrar", "quitar",
	"destruir", "confirmar", "transferir", "publicar", "finalizar compra", "cancelar suscripción",
	"darse de baja", "dar de baja", "desactivar",
}

// consequentialHan are the Chinese words, matched by substring.
var consequentialHan = []string{
	"提交", "支付", "付款", "购买", "下单", "结账", "结算", "删除", "移除", "清除", "销毁", "发送",
	"确认", "转账", "发布", "取消订阅", "退订", "停用", "注销", "刪除", "發送", "確認", "轉賬", "購買",
}

// consequentialSet holds each entry (words joined by one space);
// maxPhrase is the longest entry, in words.
var consequentialSet, maxPhrase = func() (map[string]bool, int) {
	m := make(map[string]bool, len(consequentialWords))
	n := 1
	for _, w := range consequentialWords {
		m[w] = true
		n = max(n, len(strings.Fields(w)))
	}
	return m, n
}()

// Consequential reports whether a control's text (a button's name, a
// link's text, a label) reads as a consequential action, and which entry
// matched: the first, by position in the text. It runs in time linear in
// the text (a fixed number of lookups per word).
func Consequential(targetText string) (word string, ok bool) {
	lower := strings.ToLower(targetText)
	hanAt, hanWord := -1, ""
	if hasHan(lower) {
		for _, w := range consequentialHan {
			if i := strings.Index(lower, w); i >= 0 && (hanAt < 0 || i < hanAt) {
				hanAt, hanWord = i, w
			}
		}
	}
	words, starts := splitWords(lower)
	for i := range words {
		if hanAt >= 0 && starts[i] > hanAt {
			break
		}
		// Longest phrase first, so "cancel subscription" wins over nothing
		// and "pay now" reports itself.
		for n := min(maxPhrase, len(words)-i); n >= 1; n-- {
			p := strings.Join(words[i:i+n], " ")
			if consequentialSet[p] {
				return p, true
			}
		}
	}
	if hanAt >= 0 {
		return hanWord, true
	}
	return "", false
}

// ConsequentialWords returns the vocabulary: the word entries, then the
// Chinese ones. For documentation and tests.
func ConsequentialWords() []string {
	return append(append([]string(nil), consequentialWords...), consequentialHan...)
}

// splitWords splits lower-cased text into words (runs of letters, marks and
// digits, Han characters excluded) with their byte offsets.
func splitWords(s string) (words []string, starts []int) {
	start := -1
	for i, r := range s {
		in := (unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r)) && !unicode.Is(unicode.Han, r)
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			words, starts = append(words, s[start:i]), append(starts, start)
			start = -1
		}
	}
	if start >= 0 {
		words, starts = append(words, s[start:]), append(starts, start)
	}
	return words, starts
}

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}
