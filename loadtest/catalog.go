package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// defaultSubCategories are the sub category codes the document lists (§4.1).
var defaultSubCategories = contract.SubCategories()

type syncEnvelope struct {
	Status  bool   `json:"status"`
	Message string `json:"message"`
	Data    *struct {
		Products []struct {
			ID      int64 `json:"id"`
			Pricing struct {
				BasePrice  int64 `json:"base_price"`
				FinalPrice int64 `json:"final_price"`
			} `json:"pricing"`
			Status   string `json:"status"`
			Operator struct {
				Name string `json:"name"`
			} `json:"operator"`
		} `json:"products"`
	} `json:"data"`
	Pagination *struct {
		Total      int64 `json:"total"`
		Page       int64 `json:"page"`
		PerPage    int64 `json:"perPage"`
		TotalPages int64 `json:"totalPages"`
	} `json:"pagination"`
}

type methodsEnvelope struct {
	Status bool `json:"status"`
	Data   []struct {
		ID             int64 `json:"id"`
		MinimumPayment int64 `json:"minimum_payment"`
	} `json:"data"`
}

// maxSyncPages bounds catalog discovery.
const maxSyncPages = 1000

// discover reads the catalog. exclude lists product ids never to buy (for
// example the profile's unprocessable product). token is a customer token
// for the methods call.
func (cl *client) discover(ctx context.Context, subCategories []string, exclude map[int64]bool, auth string) (*record.Catalog, error) {
	cat := &record.Catalog{}
	for _, sc := range subCategories {
		found := false
		for page := int64(1); page <= maxSyncPages; page++ {
			r := cl.doTimed(ctx, cl.syncProducts(sc, int(page), 100))
			if r.err != nil {
				return nil, fmt.Errorf("catalog: sync %s: %w", sc, r.err)
			}
			if r.code != http.StatusOK {
				return nil, fmt.Errorf("catalog: sync %s page %d: HTTP %d: %.200s", sc, page, r.code, r.body)
			}
			var env syncEnvelope
			if err := json.Unmarshal(r.body, &env); err != nil {
				return nil, fmt.Errorf("catalog: sync %s: %w", sc, err)
			}
			if env.Data == nil || env.Pagination == nil {
				break // "Subkategori tidak ditemukan." or "belum tersedia."
			}
			found = true
			if pg := env.Pagination; page == 1 {
				// A page count short of the catalog would hide products
				// from the run: a document-level rule, checked once.
				if err := contract.CheckTotalPages(pg.Total, pg.PerPage, pg.TotalPages); err != nil {
					return nil, fmt.Errorf("catalog: sync %s: %w", sc, err)
				}
			}
			for _, p := range env.Data.Products {
				if p.Status != "active" || exclude[p.ID] || p.Pricing.FinalPrice <= 0 {
					continue
				}
				cat.Products = append(cat.Products, record.Product{ID: p.ID, SubCategory: sc,
					BasePrice: p.Pricing.BasePrice, FinalPrice: p.Pricing.FinalPrice, Operator: p.Operator.Name})
			}
			if page >= env.Pagination.TotalPages {
				break
			}
		}
		if found {
			cat.SubCategories = append(cat.SubCategories, sc)
		}
	}
	if len(cat.Products) == 0 {
		return nil, errors.New("catalog: the target's sync lists no active product")
	}
	r := cl.doTimed(ctx, cl.paymentMethods(auth))
	if r.err != nil {
		return nil, fmt.Errorf("catalog: payment methods: %w", r.err)
	}
	if r.code != http.StatusOK {
		return nil, fmt.Errorf("catalog: payment methods: HTTP %d: %.200s", r.code, r.body)
	}
	var me methodsEnvelope
	if err := json.Unmarshal(r.body, &me); err != nil {
		return nil, fmt.Errorf("catalog: payment methods: %w", err)
	}
	for _, m := range me.Data {
		if m.ID != 0 {
			cat.Methods = append(cat.Methods, record.Method{ID: m.ID, MinimumPayment: m.MinimumPayment})
		}
	}
	return cat, nil
}
