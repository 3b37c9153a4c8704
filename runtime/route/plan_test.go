package route

import (
	"context"
	"strings"
	"testing"
)

func TestPlanPhrase(t *testing.T) {
	plans := []string{
		"First I will open the customers page, then click New customer.",
		"I'll open the customers page and click New customer.",
		"I will now search for Ada in the customer list.",
		"Let me check the orders page for you.",
		"I am going to create the customer Ada.",
		"We'll add Ada as a customer.",
		"Sure! I’ll go ahead and submit the form.",
		"First, open the customers page, then click New customer.",
		"Open the customers page, then click New customer and fill in the name.",
		"Step 1: navigate to /customers",
		"To do this:\n1. Open the customers page\n2. Click New customer\n3. Type Ada's name",
		"- go to the orders page\n- filter by pending",
		"Ich werde zuerst die Kundenseite öffnen und dann auf Neu klicken.",
		"Zuerst werde ich die Seite aufrufen.",
		"Je vais ouvrir la page des clients, puis cliquer sur Nouveau.",
		"D'abord, je vais créer le client Ada.",
		"Voy a abrir la página de clientes y hacer clic en Nuevo.",
		"Primero abriré la página de clientes.",
		"我会先打开客户页面，然后点击新建客户。",
		"首先点击新建客户按钮。",
	}
	answers := []string{
		"Customer Ada was created.",
		"I created the customer Ada (id 7).",
		"I opened the customers page: there are 3 customers.",
		"Which customer do you mean?",
		"Should I open the customers page and click New customer?",
		"I will open the customers page and click New. Is that what you want?",
		"I can't do that.",
		"I can open the customers page for you if you tell me which one.",
		"Once you tell me the name, I'll add the customer.",
		"I will need the customer's name to do that.",
		"Let me know which customer you mean.",
		"greet ran: 1 check(s) passed.",
		"The first customer is Ada; then comes Bob.",
		"First name: Ada, last name: Lovelace.",
		"Open orders: 3\nClosed orders: 2",
		"- Open orders: 3\n- Closed orders: 2",
		"1. Ada (ada@x.io)\n2. Bob (bob@x.io)",
		"I'll be happy to help with that.",
		"There is no macro for that; I can only greet people.",
		"Ich habe den Kunden angelegt.",
		"J'ai créé le client Ada.",
		"He creado el cliente Ada.",
		"客户已创建。",
		"您想打开哪个客户？",
		"Voulez-vous que je crée le client ?",
		"",
	}
	for _, s := range plans {
		if planPhrase(s) == "" {
			t.Errorf("not seen as a plan: %q", s)
		}
	}
	for _, s := range answers {
		if p := planPhrase(s); p != "" {
			t.Errorf("an honest answer seen as a plan (%q): %q", p, s)
		}
	}
}

func TestDetectTextPlanIsLast(t *testing.T) {
	reg := routerRegistry(t)
	// A call in the text wins over the plan around it: it can be salvaged.
	b, err := DetectText(context.Background(), reg, `I will call it now: {"name":"greet","arguments":{"name":"Ada"}}`)
	if err != nil || b == nil || b.Code != BailToolCallAsText {
		t.Fatalf("got %+v, %v", b, err)
	}
	b, err = DetectText(context.Background(), reg, "I'll open the customers page, then click New customer.")
	if err != nil || b == nil || b.Code != BailPlanWithoutCall || len(b.Candidates) != 0 {
		t.Fatalf("got %+v, %v", b, err)
	}
}

func FuzzPlanPhrase(f *testing.F) {
	for _, s := range []string{"First I will open the page, then click Save.", "1. open\n2. click", "我会先打开页面", "Je vais ouvrir", "?", "I will"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if p := planPhrase(s); p != "" && !strings.Contains(s, strings.TrimSpace(p)) {
			t.Fatalf("phrase %q is not in the text", p)
		}
	})
}
