@products
Feature: Product catalog
  A partner reads the catalog of products available to it: the product list
  for a destination number, and the catalog synchronization that only the
  main partner account may call (sections 2.1, 2.2, 4.1, 4.2 and 7 of the
  Partner Commerce API v2 document).

  Scenario: A cashier lists the prepaid airtime products for a destination number
    Given a cashier provisioned by the partner
    When the cashier lists "prabayar" products for the number "081234567890"
    Then the answer comes back with status 200 and the message "OK"

  @reading:query-empty-either-parameter
  Scenario Outline: The product list refuses an incomplete query (<case>)
    Given a cashier provisioned by the partner
    When the cashier lists "<sub category>" products for the number "<number>"
    Then the answer is refused with status 400 and the message "phone_number dan sub_category wajib diisi."

    Examples:
      | case                       | sub category | number       |
      | nothing given              |              |              |
      | no destination number      | prabayar     |              |
      | no sub category            |              | 081234567890 |

  Scenario Outline: The product list refuses an invalid destination number (<case>)
    Given a cashier provisioned by the partner
    When the cashier lists "<sub category>" products for the number "<number>"
    Then the answer is refused with status 400 and the message "Nomor tujuan tidak valid. Gunakan format nomor Indonesia yang diawali 08 dan terdiri dari 10 sampai 13 digit angka."

    Examples:
      | case                              | sub category | number         |
      | airtime number not starting 08    | prabayar     | 0712345678901  |
      | airtime number with letters       | prabayar     | 08123abc9012   |
      | airtime number in international form | prabayar  | +6281234567890 |
      | data number not starting 08       | paket-data   | 6281234567890  |
      | data number too short             | paket-data   | 08123456       |
      | data number too long              | paket-data   | 081234567890123 |

  Scenario: The product list for a number of no operator lists it, or refuses the number
    Given a cashier provisioned by the partner
    When the cashier lists "prabayar" products for the number "08001234567"
    Then the answer comes back with status 200 and the message "OK", or with status 400 and the message "Nomor tujuan tidak valid. Gunakan format nomor Indonesia yang diawali 08 dan terdiri dari 10 sampai 13 digit angka."

  @inactive-sub-category
  Scenario: The product list says an inactive sub category is not yet available
    Given a cashier provisioned by the partner
    When the cashier lists the products of the inactive sub category for the number "081234567890"
    Then the answer comes back with status 200 and the message "Subkategori belum tersedia."

  @reading:paging-arithmetic
  Scenario: The main account synchronizes the catalog with every documented product field
    Given the partner's main account
    When the main account synchronizes the "prabayar" catalog
    Then the answer comes back with status 200 and the message "OK"
    And every product has its documented fields, with a status of active or inactive
    And the pagination is consistent with the total number of products

  Scenario Outline: A cashier lists the products of each sub category (<sub category>)
    Given a cashier provisioned by the partner
    When the cashier lists "<sub category>" products for the number "081234567890"
    Then the answer comes back with status 200 and the message "OK", or says the sub category is not yet available

    Examples:
      | sub category |
      | prabayar     |
      | paket-data   |
      | paket-sms    |

  @reading:paging-arithmetic
  Scenario Outline: The main account synchronizes each sub category (<sub category>)
    Given the partner's main account
    When the main account synchronizes the "<sub category>" catalog
    Then the catalog answers with consistent pages, or says the sub category is not yet available

    Examples:
      | sub category |
      | prabayar     |
      | paket-data   |
      | paket-sms    |

  @reading:paging-arithmetic
  Scenario Outline: A page size gives pages of that size (<size> per page)
    Given the partner's main account
    When the main account synchronizes the "prabayar" catalog with <size> products per page
    Then the answer comes back with status 200 and the message "OK"
    And the pagination says <size> products per page, and no more than <size> are on the page

    Examples:
      | size |
      | 1    |
      | 7    |
      | 100  |

  Scenario Outline: The page count counts a last page that is not full (<size> per page)
    Given the partner's main account
    When the main account synchronizes the "prabayar" catalog with <size> products per page
    Then the answer comes back with status 200 and the message "OK"
    And the number of pages counts every product, the last page full or not

    Examples:
      | size |
      | 3    |
      | 100  |

  @reading:paging-arithmetic @reading:sync-default-page-is-page-1
  Scenario: Synchronizing without a page number gives the first page
    Given the partner's main account
    When the main account synchronizes the "prabayar" catalog without naming a page
    Then the answer comes back with status 200 and the message "OK"
    And the answer is page 1 of the catalog

  @reading:paging-arithmetic
  Scenario: Paging through the catalog yields every product exactly once
    Given the partner's main account
    When the main account pages through the "prabayar" catalog 3 products at a time
    Then every page is consistent with the total number of products
    And every product of the catalog was seen exactly once

  Scenario: Synchronizing without a sub category is refused
    Given the partner's main account
    When the main account synchronizes the "" catalog
    Then the answer is refused with status 400 and the message "sub_category wajib diisi."

  Scenario: Synchronizing an unknown sub category finds nothing
    Given the partner's main account
    When the main account synchronizes the "pulsa-antariksa" catalog
    Then the answer comes back with status 200 and the message "Subkategori tidak ditemukan."

  @inactive-sub-category
  Scenario: Synchronizing an inactive sub category says it is not yet available
    Given the partner's main account
    When the main account synchronizes the catalog of the inactive sub category
    Then the answer comes back with status 200 and the message "Subkategori belum tersedia."

  Scenario: Only the main account may synchronize the catalog
    Given a cashier provisioned by the partner
    When the cashier synchronizes the "prabayar" catalog
    Then the answer is refused with status 403 and the message "Product sync hanya dapat diakses oleh akun mitra utama."

  @price-plan @reading:price-plan-message
  Scenario: The product list of a partner without an active price plan carries the price plan message
    Given the main account of the partner whose price plan is not active
    When the unconfigured partner's main account lists "prabayar" products for the number "081234567890"
    Then the answer carries the message "Price plan API mitra belum dikonfigurasi, hubungi tim <operator_team> untuk informasi lebih lanjut." naming the operator team
