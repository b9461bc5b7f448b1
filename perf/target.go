package perf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
)

// TargetHandler is the cheap target both load generators are measured
// against: it answers like the embedded reference, but does no work per
// payment. A create-payment request is answered with the reference's answer
// to the perf payment in which the request's partner_trx_id and a fresh
// transaction id and number are spliced, so a generator's checks of the
// answer pass; nothing is stored and no wallet is debited. Every other
// request is answered once by an in-process reference and then from a cache
// keyed by method, URI and credentials, so the set-up reads a load tester
// makes (catalog, profiles, payment methods) see the data set.
//
// A run against it measures the generator, not a server: its balance and
// status checks (reconciliation, history) have nothing true to find.
func TargetHandler() (http.Handler, error) {
	body, err := referenceAnswer()
	if err != nil {
		return nil, err
	}
	tpl, err := newPaymentTemplate(body)
	if err != nil {
		return nil, err
	}
	ref, err := referenceHandler()
	if err != nil {
		return nil, err
	}
	return &target{tpl: tpl, ref: ref}, nil
}

type target struct {
	tpl   paymentTemplate
	ref   http.Handler
	seq   atomic.Int64
	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	status int
	ctype  string
	body   []byte
}

// maxCached bounds the cache; past it answers are served live.
const maxCached = 10_000

func (t *target) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.URL.Path == paymentPath {
		t.pay(w, r)
		return
	}
	if r.Method != http.MethodGet {
		t.ref.ServeHTTP(w, r)
		return
	}
	key := r.URL.RequestURI() + "\x00" + r.Header.Get("X-SECRET-KEY") + "\x00" + r.Header.Get("Authorization")
	t.mu.Lock()
	c, ok := t.cache[key]
	t.mu.Unlock()
	if !ok {
		rec := httptest.NewRecorder()
		t.ref.ServeHTTP(rec, r)
		c = cached{status: rec.Code, ctype: rec.Header().Get("Content-Type"), body: rec.Body.Bytes()}
		t.mu.Lock()
		if t.cache == nil {
			t.cache = map[string]cached{}
		}
		if len(t.cache) < maxCached {
			t.cache[key] = c
		}
		t.mu.Unlock()
	}
	w.Header().Set("Content-Type", c.ctype)
	w.WriteHeader(c.status)
	_, _ = w.Write(c.body)
}

func (t *target) pay(w http.ResponseWriter, r *http.Request) {
	req, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err != nil {
		http.Error(w, `{"status":false,"message":"Terjadi kesalahan sistem."}`, http.StatusInternalServerError)
		return
	}
	id, ok := partnerTrxID(req)
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"status":false,"message":"partner_trx_id wajib diisi."}`)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(t.tpl.render(make([]byte, 0, 768), t.seq.Add(1), id))
}

// partnerTrxID returns the request's partner_trx_id as a JSON string
// literal (quotes included), found by a scan for the common case and by
// decoding otherwise.
func partnerTrxID(body []byte) ([]byte, bool) {
	const key = `"partner_trx_id":"`
	if i := bytes.Index(body, []byte(key)); i >= 0 {
		rest := body[i+len(key):]
		if j := bytes.IndexByte(rest, '"'); j > 0 && bytes.IndexByte(rest[:j], '\\') < 0 {
			return body[i+len(key)-1 : i+len(key)+j+1], true
		}
	}
	var v struct {
		PartnerTrxID string `json:"partner_trx_id"`
	}
	if json.Unmarshal(body, &v) != nil || v.PartnerTrxID == "" {
		return nil, false
	}
	lit, err := json.Marshal(v.PartnerTrxID)
	return lit, err == nil
}

// paymentTemplate is the reference's answer cut around the transaction's
// id, partner_trx_id (a JSON string literal) and number sequence.
type paymentTemplate struct {
	parts [4][]byte // before id, before partner_trx_id, before the number's sequence, after it
}

// newPaymentTemplate cuts body, the answer to the perf payment with
// partner_trx_id perf-static-0000000001.
func newPaymentTemplate(body []byte) (paymentTemplate, error) {
	var ans struct {
		Data struct {
			Transaction struct {
				ID     int64  `json:"id"`
				Number string `json:"transaction_number"`
			} `json:"transaction"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return paymentTemplate{}, err
	}
	tx := ans.Data.Transaction
	idLit := []byte(`"id":` + strconv.FormatInt(tx.ID, 10) + `,`)
	trxLit := []byte(`"perf-static-0000000001"`)
	slash := bytes.LastIndexByte([]byte(tx.Number), '/')
	if slash < 0 {
		return paymentTemplate{}, fmt.Errorf("transaction number %q has no sequence", tx.Number)
	}
	numLit := []byte(`"transaction_number":"` + tx.Number + `"`)
	i, j, k := bytes.Index(body, idLit), bytes.Index(body, trxLit), bytes.Index(body, numLit)
	if i < 0 || j < i || k < j || bytes.Count(body, idLit) != 1 {
		return paymentTemplate{}, errors.New("the reference's payment answer does not have the expected shape")
	}
	var t paymentTemplate
	t.parts[0] = body[:i+len(`"id":`)]
	t.parts[1] = body[i+len(idLit)-1 : j]
	prefix := `"transaction_number":"` + tx.Number[:slash+1]
	t.parts[2] = append(bytes.Clone(body[j+len(trxLit):k]), prefix...)
	t.parts[3] = body[k+len(numLit)-1:]
	return t, nil
}

// render appends the answer for transaction n with the partner_trx_id
// literal id.
func (t paymentTemplate) render(dst []byte, n int64, id []byte) []byte {
	dst = append(dst, t.parts[0]...)
	dst = strconv.AppendInt(dst, n, 10)
	dst = append(dst, t.parts[1]...)
	dst = append(dst, id...)
	dst = append(dst, t.parts[2]...)
	var buf [20]byte
	s := strconv.AppendInt(buf[:0], n, 10)
	for range 8 - len(s) {
		dst = append(dst, '0')
	}
	dst = append(dst, s...)
	return append(dst, t.parts[3]...)
}
