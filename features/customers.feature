@customers
Feature: Customer accounts
  A partner creates or synchronizes the customer accounts under it (shops,
  outlets, branches, cashiers) and obtains one token per account; each account
  reads its own profile (sections 2.3, 4.3, 4.4, 5 and 7 of the document).

  Scenario: A new account is created and a token is returned
    When the partner provisions a new cashier account
    Then the answer comes back with status 201 and the message "Akun berhasil disinkronisasi."
    And the answer carries a customer id and a token

  Scenario: Provisioning a known phone number synchronizes the same account
    Given the partner provisioned a new cashier account
    When the partner provisions the same phone number again
    Then the answer comes back with status 200 and the message "Akun berhasil disinkronisasi."
    And the same customer id is returned

  @reading:profile-customer-id @reading:phone-compared-in-national-form
  Scenario: A new token works at once and shows the account's own profile
    Given the partner provisioned a new cashier account
    When the new cashier reads its profile
    Then the answer comes back with status 200 and the message "OK"
    And the profile shows the name, email address and phone number that were provided

  Scenario: An email address used by another account is refused
    Given the partner provisioned a new cashier account
    When the partner provisions another phone number with the same email address
    Then the answer is refused with status 400 and the message "Email yang digunakan sudah terdaftar pada akun lain. Silakan gunakan email yang berbeda."

  Scenario Outline: An email address that is not valid creates no account (<case>)
    When the partner provisions an account with the email "<email>"
    Then no account is created

    Examples:
      | case             | email                     |
      | no at sign       | kasir.tokomitra.co.id     |
      | no domain        | kasir.uji@                |
      | a space inside   | kasir uji@tokomitra.co.id |

  @isolation
  Scenario: Phone numbers and email addresses are unique per partner, not across partners
    Given the partner provisioned a new cashier account
    When the other partner provisions an account with the same phone number and email
    Then the answer comes back with status 201 and the message "Akun berhasil disinkronisasi."
    And the other partner's account is another account, with its own token

  @reading:required-field-missing-is-empty
  Scenario Outline: Provisioning with a required field left out is refused (<field> <how>)
    When the partner provisions an account with the <field> <how>
    Then the answer is refused with status 400 and the message "Data tidak lengkap."

    Examples:
      | field        | how     |
      | name         | missing |
      | name         | empty   |
      | phone number | missing |
      | phone number | empty   |
      | email        | missing |
      | email        | empty   |

  @reading:coin-value-rounds-down
  Scenario: The profile of a cashier shows whole rupiah and the value of its coins
    Given a cashier provisioned by the partner
    When the cashier reads its profile
    Then the answer comes back with status 200 and the message "OK"
    And the balance is a whole number of rupiah
    And the coin value is half the number of coins, rounded down

  @profile-fault
  Scenario: A profile whose balance and coins cannot be loaded is a server fault
    Given the account whose wallet cannot be loaded
    When the account with an unavailable wallet reads its profile
    Then the answer is refused with status 500 and the message "Profil belum dapat dimuat. Silakan coba lagi nanti."
