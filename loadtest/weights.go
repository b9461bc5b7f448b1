package loadtest

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/partnercommerce/conformance/loadtest/record"
)

// Weights is a set of named non-negative weights, written "a=3,b=1".
type Weights map[string]int

// maxWeight bounds each weight, so that the total cannot overflow.
const maxWeight = 1_000_000

// parseWeights parses "name=weight,..." and checks every name is in allowed.
func parseWeights(s string, allowed ...string) (Weights, error) {
	w := Weights{}
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, found := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if !found || err != nil || n < 0 || n > maxWeight {
			return nil, fmt.Errorf("weights %q: want name=integer from 0 to %d, got %q", s, maxWeight, part)
		}
		if !ok[k] {
			return nil, fmt.Errorf("weights %q: unknown name %q (want one of %s)", s, k, strings.Join(allowed, ", "))
		}
		w[k] = n
	}
	if w.total() == 0 {
		return nil, fmt.Errorf("weights %q: at least one weight must be above 0", s)
	}
	return w, nil
}

func (w Weights) total() int {
	t := 0
	for _, v := range w {
		t += v
	}
	return t
}

// String formats w in a stable order.
func (w Weights) String() string {
	var keys []string
	for k := range w {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, w[k]))
	}
	return strings.Join(parts, ",")
}

// picker chooses names by weight; built once per run so that a choice
// neither ranges over a map nor sums the weights.
type picker struct {
	names []string
	cum   []int // cum[i]: the weights of names[0..i] added up
	total int   // every weight, names outside the order included
}

// picker returns the picker of w over the names in order, taken in that
// order so that the choice is deterministic.
func (w Weights) picker(order []string) picker {
	p := picker{total: w.total()}
	sum := 0
	for _, k := range order {
		sum += w[k]
		p.names = append(p.names, k)
		p.cum = append(p.cum, sum)
	}
	return p
}

// pick chooses a name by weight from a 64-bit value.
func (p picker) pick(x uint64) string {
	if p.total == 0 {
		return ""
	}
	r := int(x % uint64(p.total))
	for i, c := range p.cum {
		if r < c {
			return p.names[i]
		}
	}
	return ""
}

// defaultPaymentMix and defaultOpMix are the mixes of DefaultSettings. A
// hit in a hundred of the default operation mix is a wave (of the default
// 32 requests, about a quarter of the requests): at the default rate its
// waves put one id's requests, and one wallet's debits, in flight
// together, which the duplicate check and the wallet rules need to be put
// to the test (report.Exercise).
var (
	defaultPaymentMix = Weights{record.KindBalance: 2, record.KindCoins: 1, record.KindGateway: 1}
	defaultOpMix      = Weights{record.OpCreate: 60, record.OpStatus: 25, record.OpList: 10, record.OpSync: 5, opWave: 1}
)

var (
	kindOrder = []string{record.KindBalance, record.KindCoins, record.KindGateway}
	opOrder   = []string{record.OpCreate, record.OpStatus, record.OpList, record.OpSync, opWave}
)

// opWave names, in the mixed scenario's operation mix, a hit that is a
// wave: wave-size payment creations with one partner_trx_id, sent at once.
const opWave = "wave"
