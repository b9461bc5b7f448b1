package contract

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckWave(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		w    Wave
		want error
	}{
		{"one created, the rest 409", Wave{Created: 1, Duplicate: 7}, nil},
		{"one created alone", Wave{Created: 1}, nil},
		{"a refusal used the id: every one 409", Wave{Duplicate: 8, Refused: 1}, nil},
		{"a lost answer used the id", Wave{Duplicate: 7, Uncertain: 1}, nil},
		{"every one refused for what it is", Wave{Refused: 8}, nil},
		{"nothing sent", Wave{}, nil},
		{"two created", Wave{Created: 2, Duplicate: 6}, ErrCreatedTwice},
		{"two created, a lost answer besides", Wave{Created: 2, Uncertain: 1}, ErrCreatedTwice},
		{"409 with nothing that used the id", Wave{Duplicate: 8}, ErrUnusedIDRefused},
		{"a fresh id refused as used", Wave{Duplicate: 1}, ErrUnusedIDRefused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := CheckWave(tc.w)
			if tc.want == nil {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, tc.want)
			assert.Contains(t, err.Error(), SentenceUniqueTrxID)
		})
	}
}

func TestCheckTakenWithin(t *testing.T) {
	t.Parallel()
	before := Exactly(Wallet{Balance: 1000, Coins: 400})
	for _, tc := range []struct {
		name   string
		before WalletRange
		taken  Wallet
		ok     bool
	}{
		{"nothing", before, Wallet{}, true},
		{"all of it", before, Wallet{Balance: 1000, Coins: 400}, true},
		{"a rupiah beyond the balance", before, Wallet{Balance: 1001}, false},
		{"two coins beyond", before, Wallet{Coins: 402}, false},
		{"within what a mixed payment may still hold", WalletRange{Reported: Wallet{Balance: 500}, Unpaid: Wallet{Balance: 500}}, Wallet{Balance: 1000}, true},
		{"from an overdrawn wallet", Exactly(Wallet{Balance: -5}), Wallet{Balance: 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := CheckTakenWithin(tc.before, tc.taken)
			if tc.ok {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, errBeyondWallet)
			}
		})
	}
}

func TestCheckFound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		w         Wave
		throttled int
		found     bool
		want      error
	}{
		{"created and found", Wave{Created: 1, Duplicate: 7}, 0, true, nil},
		{"a lost answer created it", Wave{Duplicate: 7, Uncertain: 1}, 0, true, nil},
		{"a lost answer did not", Wave{Duplicate: 7, Uncertain: 1}, 0, false, nil},
		{"every one refused, none found", Wave{Duplicate: 8, Refused: 1}, 2, false, nil},
		{"created, not found", Wave{Created: 1, Duplicate: 7}, 0, false, ErrCreatedNotFound},
		{"refused, yet found", Wave{Duplicate: 7, Refused: 1}, 0, true, ErrRefusedButCreated},
		{"throttled, refused, yet found", Wave{Duplicate: 8}, 1, true, ErrThrottledProcessed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := CheckFound(tc.w, tc.throttled, tc.found)
			if tc.want == nil {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, tc.want)
		})
	}
}
