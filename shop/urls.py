from django.urls import path

from shop import views

urlpatterns = [
    path("", views.shop, name="shop"),
    path("buy/<slug:slug>/", views.buy, name="shop-buy"),
    path("equip/", views.equip, name="shop-equip"),
]
