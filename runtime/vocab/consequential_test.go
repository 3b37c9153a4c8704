package vocab

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestConsequential(t *testing.T) {
	cases := []struct {
		text, want string // want "" : not consequential
	}{
		// English
		{"Submit", "submit"},
		{"Pay now", "pay now"},
		{"Place order", "place order"},
		{"Buy", "buy"},
		{"DELETE", "delete"},
		{"Delete customer", "delete"},
		{"Remove from cart", "remove"},
		{"Send message", "send"},
		{"Confirm transfer", "confirm"},
		{"Publish", "publish"},
		{"Proceed to checkout", "checkout"},
		{"Cancel subscription", "cancel subscription"},
		{"Unsubscribe", "unsubscribe"},
		{"Deactivate account", "deactivate"},
		{"/^Delete$/", "delete"},    // a regex name reads as its words
		{"Delete filter", "delete"}, // deliberate: destructive wording is flagged, the author acknowledges
		{"Save", ""},                // an act macro's normal business
		{"Add customer", ""},        // ditto
		{"Create issue", ""},        // ditto
		{"New customer", ""},        // ditto
		{"Cancel", ""},              // a dialog's cancel undoes, it does not commit
		{"Sort order", ""},          // bare "order" is a sort order
		{"Deleted items", ""},       // whole words only
		{"Submittal", ""},           // ditto
		{"Resend code", ""},         // "resend" is not "send"
		{"Payment history", ""},     // "payment" is not "pay"
		{"", ""},
		// German
		{"Absenden", "absenden"},
		{"Jetzt kaufen", "jetzt kaufen"},
		{"Zahlungspflichtig bestellen", "bestellen"},
		{"Löschen", "löschen"},
		{"LÖSCHEN", "löschen"},
		{"Bestätigen", "bestätigen"},
		{"Speichern", ""}, // save
		{"Zahlen und Fakten", ""},
		// French
		{"Supprimer", "supprimer"},
		{"Envoyer", "envoyer"},
		{"Passer la commande", "passer la commande"},
		{"Valider", "valider"},
		{"Se désabonner", "se désabonner"},
		{"Enregistrer", ""}, // save
		{"Ajouter", ""},     // add
		// Spanish
		{"Eliminar", "eliminar"},
		{"Enviar", "enviar"},
		{"Finalizar compra", "finalizar compra"},
		{"Pagar ahora", "pagar"},
		{"Cancelar suscripción", "cancelar suscripción"},
		{"Guardar", ""}, // save
		{"Crear", ""},   // create
		// Chinese: substring, no word boundaries
		{"提交", "提交"},
		{"立即购买", "购买"},
		{"删除客户", "删除"},
		{"确认付款", "确认"},
		{"保存", ""}, // save
		{"新建", ""}, // new
		{"Order 确认", "确认"},
		{"Send 删除", "send"}, // the first by position
		{"删除 Send", "删除"},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			got, ok := Consequential(tc.text)
			if ok != (tc.want != "") || got != tc.want {
				t.Errorf("Consequential(%q) = %q, %v; want %q", tc.text, got, ok, tc.want)
			}
		})
	}
}

// TestConsequentialWords: every entry is lower case, single-spaced, and
// matches itself whatever its case and punctuation around it.
func TestConsequentialWords(t *testing.T) {
	for _, w := range ConsequentialWords() {
		if w != strings.ToLower(w) || w != strings.Join(strings.Fields(w), " ") {
			t.Errorf("entry %q: want lower case, single spaces", w)
		}
		if got, ok := Consequential(" " + strings.ToUpper(w) + "! "); !ok || got != w {
			t.Errorf("Consequential(%q) = %q, %v", w, got, ok)
		}
	}
}

// TestConsequentialLinear: a megabyte of text with and without a match
// finishes well within a deadline that a quadratic scan would miss.
func TestConsequentialLinear(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		big := strings.Repeat("save the form ", 80_000)
		if _, ok := Consequential(big); ok {
			t.Error("no consequential word in the text, got a match")
		}
		if w, ok := Consequential(big + "delete"); !ok || w != "delete" {
			t.Errorf("trailing delete: %q, %v", w, ok)
		}
		if w, ok := Consequential(strings.Repeat("保存", 200_000) + "删除"); !ok || w != "删除" {
			t.Errorf("trailing 删除: %q, %v", w, ok)
		}
	}()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("Consequential on 1 MB did not finish within 5 s")
	}
}
