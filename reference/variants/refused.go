package variants

import (
	"encoding/json"
	"net/http"
	"sync"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/reference"
)

// refusedUsesID keeps the partner_trx_id of a payment it refused: a
// payment refused with 400 or 422 (a request the server read, from a
// caller it knows) still uses its id, so that a later payment with it is
// refused with 409, where the reference, which stores nothing for a
// refusal, would take it as new. The ids are kept per secret key, as the
// reference keeps them per partner.
func refusedUsesID() Variant {
	return Variant{
		Name: "a refused payment still uses its partner_trx_id",
		Why: "§4.6: partner_trx_id is \"unique\"; §7 Payment: 409 create, \"partner_trx_id already used\": the document does not say " +
			"that a refused payment frees its id, nor that it uses it",
		Unseen: map[Judge]string{
			Suite:      "no scenario sends a payment with the partner_trx_id of a refused one",
			Generated:  "it reuses only the partner_trx_ids of payments it saw created",
			LoadTester: "its payers are funded and its requests carry no defect: it reuses only the ids of payments it sent before",
		},
		Wrap: func(_ *reference.Dataset, next http.Handler) http.Handler {
			var mu sync.Mutex
			refused, created := map[string]bool{}, map[string]bool{} // by secret key and partner_trx_id
			key := func(r *http.Request, id string) string { return r.Header.Get("X-SECRET-KEY") + "\x00" + id }
			watched := watchJSON(next, func(r *http.Request, reqBody []byte, status *int, _ map[string]any) {
				var req struct {
					ID string `json:"partner_trx_id"`
				}
				if r.URL.Path != pathPayment || r.Method != http.MethodPost || json.Unmarshal(reqBody, &req) != nil || req.ID == "" {
					return
				}
				k := key(r, req.ID)
				mu.Lock()
				defer mu.Unlock()
				switch *status {
				case http.StatusOK:
					created[k] = true
				case http.StatusBadRequest, http.StatusUnprocessableEntity:
					refused[k] = true
				}
			})
			return before(watched, func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
				id, _ := body["partner_trx_id"].(string)
				if r.URL.Path != pathPayment || r.Method != http.MethodPost || id == "" {
					return false
				}
				mu.Lock()
				k := key(r, id)
				used, answered409 := refused[k], created[k]
				mu.Unlock()
				if !used {
					return false
				}
				if !answered409 {
					changed(r) // the reference would take the id as new
				}
				writeEnvelope(w, http.StatusConflict, contract.MsgDuplicate)
				return true
			})
		},
	}
}
