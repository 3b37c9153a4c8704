package demosite

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"
)

// Tiers a customer can be on, in display order.
var tiers = []string{"free", "pro", "enterprise"}

// Order statuses, in display order.
var statuses = []string{"pending", "paid", "shipped", "cancelled"}

// seedStatusCounts fixes how many seeded orders have each status, whatever the
// seed, so docs and tests can rely on the numbers; the seed only decides which
// orders get which status.
var seedStatusCounts = map[string]int{"pending": 14, "paid": 18, "shipped": 20, "cancelled": 8}

// seedOrderCount is the number of seeded orders (the sum of seedStatusCounts).
const seedOrderCount = 60

// firstOrderNumber is the number of the oldest seeded order: o1001.
const firstOrderNumber = 1001

// seedCustomers are the same for every seed so reference macros can name them.
var seedCustomers = []customer{
	{ID: "c1", Name: "Acme Corporation", Email: "billing@acme.example", Tier: "enterprise"},
	{ID: "c2", Name: "Globex Ltd", Email: "accounts@globex.example", Tier: "pro"},
	{ID: "c3", Name: "Initech", Email: "finance@initech.example", Tier: "pro"},
	{ID: "c4", Name: "Umbrella Health", Email: "ap@umbrella-health.example", Tier: "free"},
	{ID: "c5", Name: "Stark Logistics", Email: "orders@stark-logistics.example", Tier: "enterprise"},
}

// customer is a stored customer.
type customer struct {
	ID        string
	Name      string
	Email     string
	Tier      string
	CreatedAt time.Time
}

// order is a stored order. Totals are kept in cents.
type order struct {
	ID         string
	CustomerID string
	Status     string
	TotalCents int64
	Items      int
	CreatedAt  time.Time
}

// settings are the account settings shown on /settings.
type settings struct {
	EmailNotifications bool `json:"email_notifications"`
	WeeklyReport       bool `json:"weekly_report"`
	DarkMode           bool `json:"dark_mode"`
}

// store is the site's whole mutable state. It is guarded by Site.mu.
type store struct {
	customers      []customer          // in creation order
	orders         []order             // in creation order (oldest first)
	settings       settings            // the site's settings (no login required)
	userSettings   map[string]settings // each user's own settings (RequireLogin), created on first save
	nextCustomerNo int
}

// seedSettings is what settings start as, for the site and for each user.
var seedSettings = settings{EmailNotifications: true}

// newStore builds the seeded state. base is the "today" the seeded dates are
// counted back from; the same seed and base always give the same state.
func newStore(seed int64, base time.Time) *store {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6d6163726f6b6974)) // "macrokit"
	st := &store{
		settings:       seedSettings,
		userSettings:   map[string]settings{},
		nextCustomerNo: len(seedCustomers) + 1,
	}
	for i, c := range seedCustomers {
		c.CreatedAt = base.AddDate(0, 0, -120+7*i).Add(9 * time.Hour)
		st.customers = append(st.customers, c)
	}

	var pool []string
	for _, s := range statuses {
		for range seedStatusCounts[s] {
			pool = append(pool, s)
		}
	}
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })

	for i := range seedOrderCount {
		// Oldest first, roughly one order a day, during office hours.
		day := base.AddDate(0, 0, -(seedOrderCount - i))
		at := day.Add(8*time.Hour + time.Duration(rng.IntN(10*60))*time.Minute)
		st.orders = append(st.orders, order{
			ID:         fmt.Sprintf("o%d", firstOrderNumber+i),
			CustomerID: seedCustomers[rng.IntN(len(seedCustomers))].ID,
			Status:     pool[i],
			TotalCents: int64(1900 + rng.IntN(2400)*50), // 19.00 .. 1218.50, in steps of 0.50
			Items:      1 + rng.IntN(5),
			CreatedAt:  at,
		})
	}
	return st
}

// settingsOf returns the settings of user, or the site's settings for "".
func (st *store) settingsOf(user string) settings {
	if user == "" {
		return st.settings
	}
	if v, ok := st.userSettings[user]; ok {
		return v
	}
	return seedSettings
}

// setSettings stores the settings of user, or the site's settings for "".
func (st *store) setSettings(user string, v settings) {
	if user == "" {
		st.settings = v
		return
	}
	st.userSettings[user] = v
}

// customerByID returns the customer with the given id.
func (st *store) customerByID(id string) (customer, bool) {
	for _, c := range st.customers {
		if c.ID == id {
			return c, true
		}
	}
	return customer{}, false
}

// customerByEmail returns the customer with the given email, compared
// case-insensitively.
func (st *store) customerByEmail(email string) (customer, bool) {
	for _, c := range st.customers {
		if strings.EqualFold(c.Email, email) {
			return c, true
		}
	}
	return customer{}, false
}

// orderCount is how many orders a customer has.
func (st *store) orderCount(customerID string) int {
	n := 0
	for _, o := range st.orders {
		if o.CustomerID == customerID {
			n++
		}
	}
	return n
}

// searchCustomers returns the customers whose name or email contains q
// (case-insensitive) and, if tier is set, who are on that tier, in creation
// order.
func (st *store) searchCustomers(q, tier string) []customer {
	q = strings.ToLower(strings.TrimSpace(q))
	var out []customer
	for _, c := range st.customers {
		if tier != "" && c.Tier != tier {
			continue
		}
		if q != "" && !strings.Contains(strings.ToLower(c.Name), q) && !strings.Contains(strings.ToLower(c.Email), q) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// orderFilter selects orders.
type orderFilter struct {
	Status     string // "" means any
	CustomerID string // "" means any
}

// filterOrders returns the matching orders, newest first.
func (st *store) filterOrders(f orderFilter) []order {
	var out []order
	for _, o := range st.orders {
		if f.Status != "" && o.Status != f.Status {
			continue
		}
		if f.CustomerID != "" && o.CustomerID != f.CustomerID {
			continue
		}
		out = append(out, o)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return out
}

// orderByID returns the order with the given id.
func (st *store) orderByID(id string) (order, bool) {
	for _, o := range st.orders {
		if o.ID == id {
			return o, true
		}
	}
	return order{}, false
}

// validTier reports whether t is a known tier.
func validTier(t string) bool { return slices.Contains(tiers, t) }

// validStatus reports whether s is a known order status.
func validStatus(s string) bool { return slices.Contains(statuses, s) }
