package reference

import (
	"cmp"
	"slices"
	"strings"
)

// PricePlan is a partner's commercial configuration. final_price is
// base_price plus MarkupBPS basis points of it, minus the product's
// promotion discount.
type PricePlan struct {
	ID        int64  `yaml:"id"`
	Name      string `yaml:"name"`
	Active    bool   `yaml:"active"`
	MarkupBPS int64  `yaml:"markup_bps"`
}

// Partner is a partner of the service.
type Partner struct {
	ID            int64  `yaml:"id"`
	Name          string `yaml:"name"`
	SecretKey     string `yaml:"secret_key"`
	PricePlanID   int64  `yaml:"price_plan"`
	MainAccountID int64  `yaml:"main_account"`
}

// Operator is a mobile operator and the number prefixes that belong to it.
type Operator struct {
	ID       int64    `yaml:"id"`
	Name     string   `yaml:"name"`
	Logo     string   `yaml:"logo"`
	Prefixes []string `yaml:"prefixes"`
}

// SubCategory is a product sub category (prabayar, paket-data, paket-sms).
type SubCategory struct {
	Code   string `yaml:"code"`
	Name   string `yaml:"name"`
	Active bool   `yaml:"active"`
}

// Promotion is a product's own promotion: Discount rupiah off final_price.
type Promotion struct {
	ID       int64  `yaml:"id"`
	Name     string `yaml:"name"`
	Discount int64  `yaml:"discount"`
}

// The product statuses.
const (
	ProductActive   = "active"
	ProductInactive = "inactive"
)

// Product is a product of the catalog.
type Product struct {
	ID                int64      `yaml:"id"`
	Code              string     `yaml:"code"`
	Name              string     `yaml:"name"`
	Description       string     `yaml:"description"`
	SubCategory       string     `yaml:"sub_category"`
	OperatorID        int64      `yaml:"operator"`
	BasePrice         int64      `yaml:"base_price"`
	Status            string     `yaml:"status"`
	Promotion         *Promotion `yaml:"promotion"`
	HasSerial         bool       `yaml:"has_serial"`
	Unprocessable     bool       `yaml:"unprocessable"`
	FailsOnFulfilment bool       `yaml:"fails_on_fulfilment"`
	Icon              string     `yaml:"icon"`
	Banner            string     `yaml:"banner"`
}

// PaymentMethod is a gateway payment method. Id 0 is reserved for the
// internal balance/coin method, which is not listed.
type PaymentMethod struct {
	ID             int64  `yaml:"id"`
	Code           string `yaml:"code"`
	Name           string `yaml:"name"`
	Group          string `yaml:"group"`
	Gateway        string `yaml:"gateway"`
	Type           string `yaml:"type"`
	Image          string `yaml:"image"`
	MinimumPayment int64  `yaml:"minimum_payment"`
	FeeType        string `yaml:"fee_type"`
	FeeAmount      int64  `yaml:"fee_amount"`
	Active         bool   `yaml:"active"`
}

// internalMethod is payment_method_id 0: balance and coins (section 2.4).
var internalMethod = PaymentMethod{ID: 0, Code: "BALANCE", Name: "Saldo & Koin", Gateway: "SALDO", Type: "COIN", Active: true}

// catalog is everything that never changes after load. It needs no lock.
type catalog struct {
	operatorTeam string
	partners     map[int64]*Partner
	bySecretKey  map[string]*Partner
	plans        map[int64]*PricePlan
	operators    map[int64]*Operator
	byPrefix     map[string]*Operator
	subs         map[string]*SubCategory
	products     map[int64]*Product
	// productAt and methodAt list the products and the methods (the
	// internal one first) for the transactions' records, which refer to
	// them by their index there (productIndex, methodIndex).
	productAt    []*Product
	productIndex map[int64]uint32
	methodAt     []*PaymentMethod
	methodIndex  map[int64]uint32
	bySub        map[string][]*Product // ordered by id
	methods      map[int64]*PaymentMethod
	methodList   []*PaymentMethod // active, ordered by id
}

func newCatalog(ds *Dataset) *catalog {
	c := &catalog{
		operatorTeam: ds.OperatorTeam,
		partners:     map[int64]*Partner{},
		bySecretKey:  map[string]*Partner{},
		plans:        map[int64]*PricePlan{},
		operators:    map[int64]*Operator{},
		byPrefix:     map[string]*Operator{},
		subs:         map[string]*SubCategory{},
		products:     map[int64]*Product{},
		bySub:        map[string][]*Product{},
		methods:      map[int64]*PaymentMethod{},
		productIndex: map[int64]uint32{},
		methodAt:     []*PaymentMethod{&internalMethod},
		methodIndex:  map[int64]uint32{internalMethod.ID: 0},
	}
	for i := range ds.PricePlans {
		p := ds.PricePlans[i]
		c.plans[p.ID] = &p
	}
	for i := range ds.Partners {
		p := ds.Partners[i]
		c.partners[p.ID] = &p
		c.bySecretKey[p.SecretKey] = &p
	}
	for i := range ds.Operators {
		o := ds.Operators[i]
		o.Prefixes = slices.Clone(o.Prefixes)
		c.operators[o.ID] = &o
		for _, p := range o.Prefixes {
			c.byPrefix[p] = &o
		}
	}
	for i := range ds.SubCategories {
		s := ds.SubCategories[i]
		c.subs[s.Code] = &s
	}
	for i := range ds.Products {
		p := ds.Products[i]
		if p.Promotion != nil {
			promo := *p.Promotion
			p.Promotion = &promo
		}
		c.products[p.ID] = &p
		c.productIndex[p.ID] = uint32(len(c.productAt))
		c.productAt = append(c.productAt, &p)
		c.bySub[p.SubCategory] = append(c.bySub[p.SubCategory], &p)
	}
	for _, list := range c.bySub {
		slices.SortFunc(list, func(a, b *Product) int { return cmp.Compare(a.ID, b.ID) })
	}
	for i := range ds.PaymentMethods {
		m := ds.PaymentMethods[i]
		c.methods[m.ID] = &m
		c.methodIndex[m.ID] = uint32(len(c.methodAt))
		c.methodAt = append(c.methodAt, &m)
		if m.Active {
			c.methodList = append(c.methodList, &m)
		}
	}
	slices.SortFunc(c.methodList, func(a, b *PaymentMethod) int { return cmp.Compare(a.ID, b.ID) })
	return c
}

// PricedProduct is a product as one partner sees it. Product and Operator
// point into the immutable catalog and must not be modified.
type PricedProduct struct {
	Product    *Product
	Operator   *Operator
	FinalPrice int64
	// Status is the product's status as shown (active or inactive).
	Status string
}

// FinalPrice is the final_price of p under the plan (section 2.1).
func (plan PricePlan) FinalPrice(p Product) int64 {
	return finalPrice(p.BasePrice, plan.MarkupBPS, p.Promotion)
}

// finalPrice applies a price plan and the product's promotion.
func finalPrice(base, markupBPS int64, promo *Promotion) int64 {
	p := base + base*markupBPS/10000
	if promo != nil {
		p -= promo.Discount
	}
	return max(p, 0)
}

func (c *catalog) price(p *Product, plan *PricePlan) PricedProduct {
	return PricedProduct{
		Product:    p,
		Operator:   c.operators[p.OperatorID],
		FinalPrice: finalPrice(p.BasePrice, plan.MarkupBPS, p.Promotion),
		Status:     p.Status,
	}
}

// ProductPage is one page of the product sync.
type ProductPage struct {
	Products   []PricedProduct
	Total      int
	Page       int
	PerPage    int
	TotalPages int
}

// SyncQuery is the product sync query; nil means absent.
type SyncQuery struct {
	SubCategory string
	Page        *int
	PageSize    *int
}

// Check applies the sync's required parameter: sub_category, not blank. A
// parameter missing from the request is an empty one.
func (q SyncQuery) Check() error {
	if strings.TrimSpace(q.SubCategory) == "" {
		return errSubCategoryRequired
	}
	return nil
}

// The product sync page defaults (section 8 and docs/reference-choices.md).
const (
	defaultPage     = 1
	defaultPageSize = 20
)

// ListQuery is the product list query.
type ListQuery struct {
	PhoneNumber string
	SubCategory string
}

// Check applies the list's required parameters: both, not blank. A
// parameter missing from the request is an empty one.
func (q ListQuery) Check() error {
	if strings.TrimSpace(q.PhoneNumber) == "" || strings.TrimSpace(q.SubCategory) == "" {
		return ErrListQueryEmpty
	}
	return nil
}

// subCategory resolves a sub category code to an active one, or to the
// notice the document gives for an unknown or inactive one.
func (s *Store) subCategory(code string) (*SubCategory, error) {
	sub := s.cat.subs[code]
	if sub == nil {
		return nil, ErrSubCategoryNotFound
	}
	if !sub.Active && s.policy.hideInactiveSubCategories {
		return nil, ErrSubCategoryInactive
	}
	return sub, nil
}

// ListProducts lists the active products of the sub category for the
// operator the destination number's prefix belongs to, priced for the
// caller's partner. A prefix of no operator gives an empty list.
func (s *Store) ListProducts(c Caller, q ListQuery) ([]PricedProduct, error) {
	if err := q.Check(); err != nil {
		return nil, err
	}
	phone, code := strings.TrimSpace(q.PhoneNumber), strings.TrimSpace(q.SubCategory)
	if !s.policy.listPhoneValid(phone) || (s.policy.listOnly != "" && code != s.policy.listOnly) {
		return nil, errPhoneInvalid
	}
	plan, err := s.pricePlan(c.PartnerID)
	if err != nil {
		return nil, err
	}
	sub, err := s.subCategory(code)
	if err != nil {
		return nil, err
	}
	out := []PricedProduct{}
	if len(phone) < 4 {
		return out, nil
	}
	op := s.cat.byPrefix[phone[:4]]
	if op == nil {
		return out, nil
	}
	for _, p := range s.cat.bySub[sub.Code] {
		if p.OperatorID == op.ID && p.Status == ProductActive {
			out = append(out, s.cat.price(p, plan))
		}
	}
	return out, nil
}

// SyncProducts returns one page of every product of the sub category,
// active or not, ordered by id and priced for the caller's partner.
func (s *Store) SyncProducts(c Caller, q SyncQuery) (ProductPage, error) {
	if err := q.Check(); err != nil {
		return ProductPage{}, err
	}
	code := strings.TrimSpace(q.SubCategory)
	page, size := defaultPage, defaultPageSize
	if q.Page != nil {
		page = *q.Page
	}
	if q.PageSize != nil {
		size = *q.PageSize
	}
	switch {
	case page < 1:
		return ProductPage{}, errPageTooSmall
	case size < s.policy.minPageSize:
		return ProductPage{}, errPageSizeTooSmall
	case size > s.policy.maxPageSize:
		return ProductPage{}, errPageSizeTooLarge
	}
	if !s.policy.honourPageSize {
		size = defaultPageSize
	}
	plan, err := s.pricePlan(c.PartnerID)
	if err != nil {
		return ProductPage{}, err
	}
	sub, err := s.subCategory(code)
	if err != nil {
		return ProductPage{}, err
	}
	all := s.cat.bySub[sub.Code]
	skip := page - s.policy.firstPage
	lo, hi := pageBounds(len(all), skip, size)
	out := make([]PricedProduct, 0, hi-lo)
	for _, p := range all[lo:hi] {
		out = append(out, s.cat.price(p, plan))
	}
	total := len(all)
	pages := total / size
	if total%size != 0 && !s.policy.pagesRoundDown {
		pages++
	}
	return ProductPage{Products: out, Total: total, Page: page, PerPage: size, TotalPages: pages}, nil
}

// pageBounds returns the slice bounds of a page that skips skip pages of
// size items, without overflowing on huge inputs.
func pageBounds(total, skip, size int) (lo, hi int) {
	if skip < 0 || size < 1 || skip > total/size {
		return total, total
	}
	lo = skip * size
	return lo, lo + min(size, total-lo)
}

// PaymentMethods lists the active gateway methods, ordered by id.
func (s *Store) PaymentMethods(Caller) []PaymentMethod {
	out := make([]PaymentMethod, len(s.cat.methodList))
	for i, m := range s.cat.methodList {
		out[i] = *m
	}
	return out
}
