package variants

import (
	"encoding/json"
	"net/http"
	"sync"

	"github.com/partnercommerce/conformance/reference"
)

// The changes a double makes through its data set rather than by rewriting
// answers: the helpers below mark the answers in which the double's data
// shows, against the reference's embedded data set.

// minimaShown marks every methods list as changed: the double's data set
// gives its gateway methods other minimum_payment values than the
// reference's, and the list shows them.
func minimaShown(r *http.Request, status int) {
	if r.URL.Path == pathMethods && status == http.StatusOK {
		changed(r)
	}
}

// refusedBelow marks a payment through a gateway method refused with 422
// whose remainder, the product's final price when neither balance nor
// coins are used, reaches the minimum the reference's data set gives the
// method (real): the reference would have created it. ds is the double's
// data set (its products and price plans are the reference's).
func refusedBelow(ds *reference.Dataset, real map[int64]int64) func(r *http.Request, reqBody []byte, status int) {
	plans := map[string]reference.PricePlan{} // by secret key
	for _, p := range ds.Partners {
		for _, plan := range ds.PricePlans {
			if plan.ID == p.PricePlanID {
				plans[p.SecretKey] = plan
			}
		}
	}
	products := map[int64]reference.Product{}
	for _, p := range ds.Products {
		products[p.ID] = p
	}
	return func(r *http.Request, reqBody []byte, status int) {
		if r.URL.Path != pathPayment || status != http.StatusUnprocessableEntity {
			return
		}
		var req struct {
			Product    json.Number `json:"product_id"`
			Method     json.Number `json:"payment_method_id"`
			UseBalance bool        `json:"use_balance"`
			UseCoin    bool        `json:"use_coin"`
		}
		if json.Unmarshal(reqBody, &req) != nil || req.UseBalance || req.UseCoin {
			return
		}
		id, _ := req.Product.Int64()
		method, _ := req.Method.Int64()
		p, known := products[id]
		plan, partner := plans[r.Header.Get("X-SECRET-KEY")]
		if minimum, gateway := real[method]; known && partner && gateway && method != 0 && plan.FinalPrice(p) >= minimum {
			changed(r)
		}
	}
}

// minima are the minimum_payment values of a data set's gateway methods.
func minima(ds *reference.Dataset) map[int64]int64 {
	out := map[int64]int64{}
	for _, m := range ds.PaymentMethods {
		out[m.ID] = m.MinimumPayment
	}
	return out
}

// heldWatched marks the answers in which a wallet shows what the mixed
// payments of its account have not taken yet (walletWhenPaid): a profile
// that shows such a part, and a payment that spends it, where the
// reference would have taken it already.
func heldWatched(next http.Handler) http.Handler {
	var mu sync.Mutex
	held := map[string]int64{} // rupiah and coins not yet taken, by credentials
	return watchJSON(next, func(r *http.Request, _ []byte, status *int, body map[string]any) {
		data, _ := body["data"].(map[string]any)
		if *status != http.StatusOK || data == nil {
			return
		}
		who := r.Header.Get("X-SECRET-KEY") + "\x00" + r.Header.Get("Authorization")
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Path {
		case pathProfile:
			if held[who] > 0 {
				changed(r)
			}
		case pathPayment:
			tx, _ := data["transaction"].(map[string]any)
			amount, _ := tx["amount"].(map[string]any)
			balance, _ := integer(amount["balance_used"])
			coins, _ := integer(amount["coin_used"])
			gateway, _ := integer(amount["gateway_payment"])
			if used := balance + coins; gateway > 0 {
				held[who] += used
			} else if spent := min(used, held[who]); spent > 0 {
				held[who] -= spent
				changed(r)
			}
		}
	})
}
