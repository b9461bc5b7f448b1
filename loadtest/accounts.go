package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/profiles"
)

// Account is a customer account the run pays with.
type Account struct {
	// Key names the account in ledgers and reports without its token:
	// "load_customers[2]" or "provisioned:<phone>".
	Key  string `json:"key"`
	auth string // Authorization header value, built once: "Bearer <token>"
	// min is what the profile says the account holds at least
	// (min_balance, min_coins), used when its wallet cannot be read.
	minBalance, minCoins int64
	// wallet is what the account can still spend; nil when not known, and
	// then payments are not held to it.
	wallet *budget
	Funded bool `json:"funded"`
	// Shared is true when other shards pay with the same account, so that
	// only a merge of all shards can reconcile it.
	Shared bool `json:"shared"`
}

// partitionAccounts picks shard s's accounts from the profile: its share of
// load_customers; nil when the profile lists none. The accounts the profile
// reserves for the conformance scenarios (funded_customer, split_customer,
// ...) are never spent by a load test: without load customers the run
// provisions its own.
func partitionAccounts(p *profiles.Profile, s record.Shard) []Account {
	var all []Account
	for i, c := range p.LoadCustomers {
		all = append(all, Account{Key: fmt.Sprintf("load_customers[%d]", i), auth: bearer(c.Token), Funded: true,
			minBalance: c.MinBalance, minCoins: c.MinCoins})
	}
	if len(all) == 0 {
		return nil
	}
	if len(all) >= s.Count {
		var mine []Account
		for i, a := range all {
			if i%s.Count == s.Index {
				mine = append(mine, a)
			}
		}
		return mine
	}
	a := all[s.Index%len(all)]
	a.Shared = true
	return []Account{a}
}

type provisionEnvelope struct {
	Status bool `json:"status"`
	Data   struct {
		Token string `json:"token"`
	} `json:"data"`
}

// provision creates n unfunded accounts of shard s of run.
func (cl *client) provision(ctx context.Context, run string, s record.Shard, n int) ([]Account, error) {
	var out []Account
	for k := range n {
		// 08 + 10 digits: a hash of run and shard, then k.
		h := fnv64(run + "/" + s.String())
		phone := fmt.Sprintf("089%07d%02d", h%10_000_000, k%100)
		device := "loadtest"
		body := api.ProvisionAccountRequest{
			Name:        fmt.Sprintf("Load %s %d %d", run, s.Index, k),
			PhoneNumber: phone,
			Email:       fmt.Sprintf("load-%s-%d-%d@loadtest.invalid", run, s.Index, k),
			DeviceId:    &device,
		}
		r := cl.doTimed(ctx, cl.provisionAccount(body))
		if r.err != nil {
			return nil, fmt.Errorf("provision: %w", r.err)
		}
		if r.code != http.StatusOK && r.code != http.StatusCreated {
			return nil, fmt.Errorf("provision: HTTP %d: %.200s", r.code, r.body)
		}
		var env provisionEnvelope
		if err := json.Unmarshal(r.body, &env); err != nil || env.Data.Token == "" {
			return nil, fmt.Errorf("provision: no token in %.200s", r.body)
		}
		out = append(out, Account{Key: "provisioned:" + phone, auth: bearer(env.Data.Token)})
	}
	return out, nil
}

func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

type profileEnvelope struct {
	Data struct {
		Balance struct {
			Available int64 `json:"available"`
		} `json:"balance"`
		Coin struct {
			Available int64 `json:"available"`
		} `json:"coin"`
	} `json:"data"`
}

// wallet reads the profile of token.
func (cl *client) wallet(ctx context.Context, auth string) (record.Wallet, error) {
	r := cl.doTimed(ctx, cl.customerProfile(auth))
	if r.err != nil {
		return record.Wallet{}, fmt.Errorf("profile: %w", r.err)
	}
	if r.code != http.StatusOK {
		return record.Wallet{}, fmt.Errorf("profile: HTTP %d: %.200s", r.code, r.body)
	}
	var env profileEnvelope
	if err := json.Unmarshal(r.body, &env); err != nil {
		return record.Wallet{}, fmt.Errorf("profile: %w", err)
	}
	return record.Wallet{Balance: env.Data.Balance.Available, Coins: env.Data.Coin.Available, At: time.Now().UTC()}, nil
}
