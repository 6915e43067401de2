BoutputJk@(knÎ(knÎ(knÎ(knÎ(knÎtGÀ®m¾(knÎ(knÎ(knÎ(knÎè¾+¿,‡¿(knÎ(knÎ(knÎ­/u?î˜L¾ÿ»Æ<uİÅ?(knÎ(knÎ$:;¾Û_
?÷°÷?­Š¾rgy¾(knÎ
ïb¿[\•¾îa?Ò‘?m»=ö‹+?