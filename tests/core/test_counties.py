"""County FIPS codes, names and states; a ZIP's county (values from the Census county list)."""

from __future__ import annotations

from core.counties import County, county, county_fips, county_zips, zip_county


def test_a_county_by_code_and_by_name() -> None:
    assert county("33011") == County("33011", "Hillsborough County", "NH")
    assert county("45079") == County("45079", "Richland County", "SC")
    assert county("99999") is None
    assert county_fips("Hillsborough", "NH") == "33011"
    assert county_fips("Hillsborough County", "NH") == "33011"
    assert county_fips("Ben_Hill", "GA") == "13017"  # the Plan Finder's spelling
    assert county_fips("Hillsborough", "FL") == "12057"
    assert county_fips("Alamance", "SC") is None  # a North Carolina county
    assert county_fips("", "NH") is None and county_fips("Hillsborough", "") is None


def test_a_zip_lies_in_one_county() -> None:
    assert zip_county("03031") == County("33011", "Hillsborough County", "NH")  # Amherst
    assert zip_county("29201") == County("45079", "Richland County", "SC")  # Columbia
    assert zip_county("00000") is None
    assert "03031" in county_zips()["33011"] and "29201" not in county_zips()["33011"]
