package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/internal/contract"
)

// syncPage is one answer of product sync.
type syncPage struct {
	ex         *exchange
	by         *account // the account that asked
	sub        string   // the sub category asked for
	products   []map[string]any
	pagination *paginationNumbers
}

type paginationNumbers struct {
	Total, Page, PerPage, TotalPages int64
}

func (s *scenario) registerProducts(sc stepper) {
	sc.Step(`^a cashier provisioned by the partner$`, s.aCashier)
	sc.Step(`^the partner's main account$`, func() error { s.addMain("the main account", s.mainPartner()); return nil })
	sc.Step(`^the main account of the other partner$`, func() error {
		s.addMain("the other partner's main account", s.otherPartner())
		return nil
	})
	sc.Step(`^the main account of the partner whose price plan is not active$`, func() error {
		s.addMain("the unconfigured partner's main account", s.unconfiguredPartner())
		return nil
	})
	sc.Step(`^`+actorRE+` lists "([^"]*)" products for the number "([^"]*)"$`, s.listProducts)
	sc.Step(`^`+actorRE+` lists the products of the inactive sub category for the number "([^"]*)"$`, func(ctx context.Context, actor, number string) error {
		return s.listProducts(ctx, actor, s.h.profile.InactiveSubCategory, number)
	})
	sc.Step(`^`+actorRE+` synchronizes the "([^"]*)" catalog$`, func(ctx context.Context, actor, sub string) error {
		return s.syncOnce(ctx, actor, sub, nil, nil)
	})
	sc.Step(`^`+actorRE+` synchronizes the "([^"]*)" catalog without naming a page$`, func(ctx context.Context, actor, sub string) error {
		return s.syncOnce(ctx, actor, sub, nil, nil)
	})
	sc.Step(`^`+actorRE+` synchronizes the "([^"]*)" catalog with (\d+) products per page$`, func(ctx context.Context, actor, sub string, size int) error {
		return s.syncOnce(ctx, actor, sub, nil, &size)
	})
	sc.Step(`^`+actorRE+` synchronizes the catalog of the inactive sub category$`, func(ctx context.Context, actor string) error {
		return s.syncOnce(ctx, actor, s.h.profile.InactiveSubCategory, nil, nil)
	})
	sc.Step(`^`+actorRE+` synchronizes page (\d+) of the "([^"]*)" catalog with (\d+) products per page$`, func(ctx context.Context, actor string, page int, sub string, size int) error {
		return s.syncOnce(ctx, actor, sub, &page, &size)
	})
	sc.Step(`^`+actorRE+` pages through the "([^"]*)" catalog (\d+) products at a time$`, s.pageThrough)
	sc.Step(`^every product has its documented fields, with a status of active or inactive$`, s.everyProductDocumented)
	sc.Step(`^the pagination is consistent with the total number of products$`, s.paginationConsistent)
	sc.Step(`^the answer is page 1 of the catalog$`, s.isFirstPage)
	sc.Step(`^every page is consistent with the total number of products$`, s.everyPageConsistent)
	sc.Step(`^the number of pages counts every product, the last page full or not$`, s.pagesCountEveryProduct)
	sc.Step(`^every product of the catalog was seen exactly once$`, s.everyProductOnce)
	sc.Step(`^no more than (\d+) products are on the page$`, s.noMoreThan)
	sc.Step(`^the pagination says (\d+) products per page, and no more than (\d+) are on the page$`, s.perPage)
	sc.Step(`^the answer comes back with status 200 and the message "OK", or says the sub category is not yet available$`, s.okOrNotYetAvailable)
	sc.Step(`^the catalog answers with consistent pages, or says the sub category is not yet available$`, s.syncOrNotYetAvailable)
	sc.Step(`^the answer carries the message "([^"]*)" naming the operator team$`, s.carriesPricePlanMessage)
}

func (s *scenario) listProducts(ctx context.Context, actor, sub, number string) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	_, err = s.send(func() (*http.Response, error) {
		return s.api().ListProducts(ctx, &api.ListProductsParams{PhoneNumber: number, SubCategory: sub}, a.creds())
	})
	if (sub == "") != (number == "") {
		s.restsOn = "query-empty-either-parameter"
	}
	return err
}

func (s *scenario) syncOnce(ctx context.Context, actor, sub string, page, size *int) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	pg, err := s.syncPage(ctx, a, sub, page, size)
	if err != nil {
		return err
	}
	s.pages = []syncPage{pg}
	return nil
}

// syncPage calls product sync and decodes what it can; it fails only on
// transport errors and departures from openapi.yaml.
func (s *scenario) syncPage(ctx context.Context, a *account, sub string, page, size *int) (syncPage, error) {
	ex, err := s.send(func() (*http.Response, error) {
		return s.api().SyncProducts(ctx, &api.SyncProductsParams{SubCategory: sub, Page: page, PageSize: size}, a.creds())
	})
	pg := syncPage{ex: ex, by: a, sub: sub}
	if err != nil {
		return pg, err
	}
	var body struct {
		Data *struct {
			Products []map[string]any `json:"products"`
		} `json:"data"`
		Pagination *struct {
			Total      json.Number `json:"total"`
			Page       json.Number `json:"page"`
			PerPage    json.Number `json:"perPage"`
			TotalPages json.Number `json:"totalPages"`
		} `json:"pagination"`
	}
	if err := decode(ex.RespBody, &body); err != nil {
		return pg, s.failure(ex, secEveryJSON, "a JSON body", "%v", err)
	}
	if body.Data != nil {
		pg.products = body.Data.Products
	}
	if p := body.Pagination; p != nil {
		n := &paginationNumbers{}
		for _, f := range []struct {
			v   json.Number
			dst *int64
		}{{p.Total, &n.Total}, {p.Page, &n.Page}, {p.PerPage, &n.PerPage}, {p.TotalPages, &n.TotalPages}} {
			if *f.dst, err = f.v.Int64(); err != nil {
				return pg, s.failure(ex, secPagination, "integer pagination fields", "pagination holds %q: %v", f.v, err)
			}
		}
		pg.pagination = n
	}
	return pg, nil
}

// okPage requires a sync answer of 200 OK with products and pagination.
func (s *scenario) okPage(pg syncPage) error {
	env, err := s.envelope(pg.ex)
	if err != nil {
		return err
	}
	if pg.ex.Status != http.StatusOK || env.Message != contract.MsgOK {
		if skip := s.systemFault(pg.ex, env); skip != nil {
			return skip
		}
		return s.failure(pg.ex, "§4.2: Success response body: status, data.products, pagination, message.", "status 200 and the message \"OK\"",
			"got status %d and the message %q", pg.ex.Status, env.Message)
	}
	if pg.pagination == nil || pg.products == nil {
		return s.failure(pg.ex, "§4.2: Success response body: status (boolean), data.products (array of Product, 2.1), pagination (2.2), message.",
			"data.products and pagination", "data.products or pagination is missing")
	}
	return nil
}

func (s *scenario) lastPage() (syncPage, error) {
	if len(s.pages) == 0 {
		return syncPage{}, fmt.Errorf("no catalog was synchronized before this check")
	}
	return s.pages[len(s.pages)-1], nil
}

func (s *scenario) everyProductDocumented() error {
	pg, err := s.lastPage()
	if err != nil {
		return err
	}
	if err := s.okPage(pg); err != nil {
		return err
	}
	// Every field of section 2.1 and its type is checked on every answer by
	// the response validator (openapi.yaml's Product schema, see send); this
	// step adds the 200 OK with products and pagination, and section 3's values.
	for i, p := range pg.products {
		if st := p["status"]; st != "active" && st != "inactive" {
			return s.failure(pg.ex, "§3: Product status is active or inactive.", "active or inactive", "product %d has status %v", i, st)
		}
	}
	return nil
}

// pageConsistent checks one page against its own pagination answer: the
// page asked for, a perPage of at least 1, at most perPage products and, on
// the first page (a full page, whatever perPage counts), totalPages =
// ceil(total / perPage) at document level; the rest of the arithmetic of
// totalPages and of the page's size rests on the reading paging-arithmetic.
func (s *scenario) pageConsistent(pg syncPage, wantPage int64) error {
	if err := s.okPage(pg); err != nil {
		return err
	}
	p := pg.pagination
	switch {
	case p.Page != wantPage:
		return s.failure(pg.ex, secPagination, fmt.Sprintf("page %d", wantPage), "pagination.page is %d", p.Page)
	case p.PerPage < 1:
		return s.failure(pg.ex, secPagination, "perPage of at least 1", "pagination.perPage is %d", p.PerPage)
	case p.Total < 0:
		return s.failure(pg.ex, secPagination, "a total of at least 0", "pagination.total is %d", p.Total)
	case int64(len(pg.products)) > p.PerPage:
		return s.failure(pg.ex, secPagination, fmt.Sprintf("at most perPage = %d products", p.PerPage), "the page holds %d products", len(pg.products))
	}
	if wantPage == 1 {
		if err := contract.CheckTotalPages(p.Total, p.PerPage, p.TotalPages); err != nil {
			return s.failure(pg.ex, contract.SentenceTotalPages, fmt.Sprintf("totalPages %d", contract.TotalPages(p.Total, p.PerPage)), "%v", err)
		}
	}
	return s.reading(contract.MustReading("paging-arithmetic"), s.pageArithmetic(pg, wantPage))
}

// pageArithmetic checks totalPages and the size of the page.
func (s *scenario) pageArithmetic(pg syncPage, wantPage int64) error {
	p := pg.pagination
	pages := contract.TotalPages(p.Total, p.PerPage)
	if contract.CheckTotalPages(p.Total, p.PerPage, p.TotalPages) != nil { // on any page: the reading
		return s.failure(pg.ex, secPagingReading, fmt.Sprintf("totalPages = ceil(total / perPage) = ceil(%d / %d) = %d", p.Total, p.PerPage, pages),
			"pagination.totalPages is %d", p.TotalPages)
	}
	want := int64(0)
	if wantPage < pages {
		want = p.PerPage
	} else if wantPage == pages {
		want = p.Total - p.PerPage*(pages-1)
	}
	if int64(len(pg.products)) != want {
		return s.failure(pg.ex, secPagingReading, fmt.Sprintf("%d products on page %d of %d (perPage %d, total %d)", want, wantPage, pages, p.PerPage, p.Total),
			"the page holds %d products", len(pg.products))
	}
	return nil
}

// pagesCountEveryProduct checks the page count of the last page read at
// document level: totalPages = ceil(total / perPage).
func (s *scenario) pagesCountEveryProduct() error {
	pg, err := s.lastPage()
	if err != nil {
		return err
	}
	if err := s.okPage(pg); err != nil {
		return err
	}
	p := pg.pagination
	if err := contract.CheckTotalPages(p.Total, p.PerPage, p.TotalPages); err != nil {
		return s.failure(pg.ex, contract.SentenceTotalPages, fmt.Sprintf("totalPages %d", contract.TotalPages(p.Total, p.PerPage)), "%v", err)
	}
	return nil
}

func (s *scenario) paginationConsistent() error {
	pg, err := s.lastPage()
	if err != nil {
		return err
	}
	return s.pageConsistent(pg, 1)
}

func productIDs(pg syncPage) []string {
	ids := make([]string, 0, len(pg.products))
	for _, p := range pg.products {
		ids = append(ids, fmt.Sprint(p["id"]))
	}
	return ids
}

func (s *scenario) isFirstPage(ctx context.Context) error {
	pg, err := s.lastPage()
	if err != nil {
		return err
	}
	if err := s.pageConsistent(pg, 1); err != nil {
		return err
	}
	one := 1
	first, err := s.syncPage(ctx, pg.by, pg.sub, &one, nil)
	if err != nil {
		return err
	}
	if err := s.okPage(first); err != nil {
		return err
	}
	got, want := strings.Join(productIDs(pg), ","), strings.Join(productIDs(first), ",")
	var same error
	if got != want {
		same = s.failure(first.ex, "§4.2/§8: page — Default 1.", "the same products as without a page number: ["+got+"]",
			"page 1 holds [%s]", want)
	}
	return s.reading(contract.MustReading("sync-default-page-is-page-1"), same)
}

func (s *scenario) pageThrough(ctx context.Context, actor, sub string, size int) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	s.pages = nil
	for page := 1; ; page++ {
		p := page
		pg, err := s.syncPage(ctx, a, sub, &p, &size)
		if err != nil {
			return err
		}
		s.pages = append(s.pages, pg)
		if err := s.okPage(pg); err != nil {
			return err
		}
		if int64(page) >= s.pages[0].pagination.TotalPages || page >= maxSyncPages {
			return nil
		}
	}
}

func (s *scenario) everyPageConsistent() error {
	if len(s.pages) == 0 {
		return fmt.Errorf("no catalog was paged through before this check")
	}
	first := s.pages[0].pagination
	for i, pg := range s.pages {
		if err := s.pageConsistent(pg, int64(i+1)); err != nil {
			return err
		}
		if pg.pagination.Total != first.Total || pg.pagination.PerPage != first.PerPage {
			return s.reading(contract.MustReading("paging-arithmetic"), s.failure(pg.ex, secPagingReading, fmt.Sprintf("the total %d and perPage %d of page 1", first.Total, first.PerPage),
				"page %d reports total %d and perPage %d", i+1, pg.pagination.Total, pg.pagination.PerPage))
		}
	}
	return nil
}

func (s *scenario) everyProductOnce() error {
	if len(s.pages) == 0 {
		return fmt.Errorf("no catalog was paged through before this check")
	}
	seen := map[string]int{}
	var dups []string
	for i, pg := range s.pages {
		for _, id := range productIDs(pg) {
			if prev, ok := seen[id]; ok {
				dups = append(dups, fmt.Sprintf("%s (pages %d and %d)", id, prev, i+1))
			}
			seen[id] = i + 1
		}
	}
	last := s.pages[len(s.pages)-1]
	total := s.pages[0].pagination.Total
	if len(dups) > 0 || int64(len(seen)) != total {
		sort.Strings(dups)
		return s.reading(contract.MustReading("paging-arithmetic"), s.failure(last.ex, secPagingReading,
			fmt.Sprintf("%d distinct products over %d pages", total, len(s.pages)),
			"saw %d distinct products; repeated: %v", len(seen), dups))
	}
	return nil
}

// perPage checks section 4.2's pageSize, "Records per page": a page asked
// for with pageSize N holds at most N products (the document's words), and
// says perPage N (the reading paging-arithmetic: section 2.2 gives perPage
// as an integer, and does not say that it echoes pageSize).
func (s *scenario) perPage(n, limit int) error {
	pg, err := s.lastPage()
	if err != nil {
		return err
	}
	if err := s.okPage(pg); err != nil {
		return err
	}
	if err := contract.CheckPageSize(len(pg.products), limit); err != nil {
		return s.failure(pg.ex, secPerPage, fmt.Sprintf("at most %d products", limit), "%v", err)
	}
	var echo error
	if pg.pagination.PerPage != int64(n) {
		echo = s.failure(pg.ex, secPagingReading, fmt.Sprintf("perPage %d, the pageSize asked for", n),
			"perPage %d and %d products", pg.pagination.PerPage, len(pg.products))
	}
	return s.reading(contract.MustReading("paging-arithmetic"), echo)
}

// okOrNotYetAvailable checks a product list of one of the document's sub
// categories: 200 with OK, or 200 with "Subkategori belum tersedia." when
// the server keeps that sub category inactive.
func (s *scenario) okOrNotYetAvailable() error {
	ex, env, err := s.lastEnvelope()
	if err != nil {
		return err
	}
	if err := contract.CheckAnswer(ex.Status, env.Message, http.StatusOK, contract.MsgOK); err != nil &&
		contract.CheckAnswer(ex.Status, env.Message, http.StatusOK, contract.MsgSubCategoryInactive) != nil {
		return s.failure(ex, secSubCategories, fmt.Sprintf("status 200 and the message %q or %q", contract.MsgOK, contract.MsgSubCategoryInactive), "%v", err)
	}
	if env.Message == contract.MsgOK && !env.Status {
		return s.failure(ex, "§4: Every success body has status true and message OK unless stated.", "status true", "got status false in a success body")
	}
	return nil
}

// syncOrNotYetAvailable checks a sync of one of the document's sub
// categories: consistent pages, or the inactive sub category's notice.
func (s *scenario) syncOrNotYetAvailable() error {
	pg, err := s.lastPage()
	if err != nil {
		return err
	}
	if err := s.okOrNotYetAvailable(); err != nil {
		return err
	}
	env, err := s.envelope(pg.ex)
	if err != nil || env.Message != contract.MsgOK {
		return err
	}
	return s.pageConsistent(pg, 1)
}

func (s *scenario) noMoreThan(limit int) error {
	pg, err := s.lastPage()
	if err != nil {
		return err
	}
	if err := s.okPage(pg); err != nil {
		return err
	}
	if err := contract.CheckPageSize(len(pg.products), limit); err != nil {
		return s.failure(pg.ex, secPageSizeMax, fmt.Sprintf("at most %d products", limit), "%v", err)
	}
	return nil
}

// carriesPricePlanMessage checks the section 1 message, whose <operator_team> is
// the profile's operator_team. The document says the endpoints "may" answer
// with it and gives no status: where the answer carries a price plan message
// it must be byte-exact (document level); that the answer fails with it at
// all is the reading price-plan-message.
func (s *scenario) carriesPricePlanMessage(template string) error {
	ex, env, err := s.lastEnvelope()
	if err != nil {
		return err
	}
	if template != contract.MsgPricePlan {
		return fmt.Errorf("the feature names %q, not the price plan message of section 1 %q", template, contract.MsgPricePlan)
	}
	want := strings.ReplaceAll(template, "<operator_team>", s.h.profile.OperatorTeam)
	if env.Message == want {
		s.h.coverage.asserted(ex, template)
		return nil
	}
	if strings.HasPrefix(env.Message, contract.PricePlanPrefix) {
		return s.failure(ex, secPricePlan, fmt.Sprintf("the message %q, byte for byte", want),
			"got status %d and the message %q", ex.Status, env.Message)
	}
	return s.reading(contract.MustReading("price-plan-message"), s.failure(ex, secPricePlan, fmt.Sprintf("a failure with the message %q (any status)", want),
		"got status %d and the message %q", ex.Status, env.Message))
}
